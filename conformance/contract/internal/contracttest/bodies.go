package contracttest

// The bodies of a valid exchange of each route (the requests' *Req, the
// answers' *OK, and error answers of the minimal and extended shapes): each
// judges clean, and a test breaks one rule of one of them.
var (
	TokenReq    = `{"clientId":"2b28bc5f-714d-4515-9a30-06854d5df38c","clientSecret":"s"}`
	TokenOK     = `{"access_token":"` + TestToken(Epoch) + `","token_type":"Bearer","expires_in":1800}`
	BalanceOK   = `{"data":[{"eventDate":"2026-03-02T12:00:00Z","balanceAmount":{"available":100.50,"blocked":0,"overdraft":0}}]}`
	StdBalOK    = `{"grossBalance":100.50,"blockedBalance":0.00,"netBalance":100.50,"consultedAt":"2026-03-02T12:00:00Z"}`
	TransferReq = `{"pixKey":"53992810232","payment":{"currency":"BRL","amount":12.34}}`
	TransferOK  = `{"endToEndId":"0b8f5f0e3c1d4c579a556a3e1b2f9c10","eventDate":"2026-03-02T12:00:00Z","id":7,"payment":{"amount":12.34},"type":"PENDING"}`
	CashOutReq  = `{"value":10.50,"externalId":"e1","description":"d","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`
	CashOutOK   = `{"transactionId":"6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10","externalId":"e1","status":"PENDING","generateTime":"2026-03-02T12:00:00Z"}`
	CashInReq   = `{"transaction":{"value":25.00,"description":"d","externalId":"c1","generateQrCode":true},"payer":{"fullName":"F","document":"52998224725"}}`
	CashInOK    = `{"transactionId":"12","correlationId":"6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10","externalId":"c1","status":"PENDING","pixCode":"` + BRCode +
		`","generateTime":"2026-03-02T12:00:00Z","expirationDate":"2026-03-03T12:00:00Z","qrCodeImage":"iVBORw0KGgo="}`
	CobReq     = `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"k1"}`
	CobOK      = `{"calendario":{"criacao":"2026-03-02T12:00:00Z","expiracao":3600},"txid":"proxytxid0000000000000000000001","revisao":0,"loc":{"id":1,"location":"` + BRCode + `","tipoCob":"cob"},"location":"` + BRCode + `","status":"ATIVA","valor":{"original":"15.00","modalidadeAlteracao":0},"chave":"k1"}`
	CobPath    = "/cob/proxytxid0000000000000000000001"
	E2E        = "E13140088202603021200abcdefghijk"
	RefundPath = "/pix/" + E2E + "/devolucao/r1"
	RefundReq  = `{"valor":"10.00","natureza":"ORIGINAL"}`
	RefundOK   = `{"id":"r1","rtrId":"D13140088202603021200abcdefghijk","valor":"10.00","natureza":"ORIGINAL","horario":{"solicitacao":"2026-03-02T12:00:00Z"},"status":"EM_PROCESSAMENTO"}`
	RefundInOK = `{"transactionId":"40","externalId":"r2","status":"PENDING","refundValue":5.00,"providerTransactionId":"D13140088202603021200abcdefghijk","generateTime":"2026-03-02T12:00:00Z"}`
	ListingOK  = `{"data":[{"transactionId":"5","externalId":"","status":"Confirmado","operationType":"Pix in","movementType":"CREDIT","originalAmount":50.00,"feeAmount":0.00,"finalAmount":50.00,"endToEndId":"` + E2E +
		`","createdAt":"2026-03-02T12:00:00Z","processedAt":"2026-03-02T12:00:00Z","counterpart":{"name":"n","document":"***.456.789-**","bank":{"bankISPB":"1","bankName":"b","bankCode":"1","accountBranch":"1","accountNumber":"1"}}}],` +
		`"metadata":{"page":1,"size":20,"total":1,"totalPages":1,"hasNext":false,"hasPrevious":false}}`
	MedOK = `{"data":[{"id":1,"endToEnd":"` + E2E + `","status":"OPEN","reason":"REFUND_REQUEST","cause":"SCAM","description":null,"analysisResult":null,"analysisDetails":null,` +
		`"requestingBank":{"ispb":"1","name":"a"},"contestedBank":{"ispb":"2","name":"b"},"originalTransaction":null,"isReconciled":false,"originalTransactionId":null,` +
		`"createdAt":"2026-03-02T12:00:00Z","updatedAt":"2026-03-02T12:00:00Z"}],"metadata":{"total":1,"page":1,"pageSize":20,"totalPages":1}}`
	MinimalErr = `{"statusCode":400,"message":"valor is invalid","error":"Bad Request"}`
	ExtErr     = `{"statusCode":400,"timestamp":"2026-03-02T12:00:00Z","path":"/public/api/pix/cash-out","method":"POST","code":"PIX_INVALID_AMOUNT","errorCode":"PIX_INVALID_AMOUNT","message":["value must have at most 2 decimals"],"userMessage":"u","errorId":"id1","error":"Bad Request"}`
)

// Idem sets the X-Idempotency-Key of a POST /dict/pix.
var Idem = Header("X-Idempotency-Key", "6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10")

// Valid deliveries of every payload, as the sandbox writes them: each judges
// clean, and a test breaks one rule of one of them.
var (
	hookParty   = `"counterpart":{"name":"Dane Powell","document":"***.928.102-**","bank":{"bankISPB":"00000000","bankName":"Banco","bankCode":"001","accountBranch":null,"accountNumber":"123"}}`
	CashOutHook = `{"event":"CashOut","status":"CONFIRMED","transactionType":"PIX","movementType":"DEBIT","transactionId":"12","externalId":"e1","endToEndId":"` + E2E +
		`","pixKey":"53992810232","feeAmount":0.00,"originalAmount":10.50,"finalAmount":10.50,"processingDate":"2026-03-02T12:00:02.000Z","errorCode":null,"errorMessage":null,` + hookParty + `,"metadata":{}}`
	CashInHook = `{"event":"CashIn","status":"CONFIRMED","transactionType":"PIX","movementType":"CREDIT","transactionId":"13","externalId":"c1","correlationId":"6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10","endToEndId":"` + E2E +
		`","feeAmount":0.00,"originalAmount":25.00,"finalAmount":25.00,"processingDate":"2026-03-02T12:00:02.000Z","errorCode":null,"errorMessage":null,` + hookParty + `,"metadata":{"order":"1"}}`
	TransferHook = `{"type":"TRANSFER","data":{"id":7,"txId":null,"pixKey":"53992810232","status":"LIQUIDATED","payment":{"amount":"12.30","currency":"BRL"},"endToEndId":"` + E2E +
		`","creditDebitType":"DEBIT","idempotencyKey":"6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10","creditorAccount":{"name":"Dane","document":"***.928.102-**","ispb":"00000000"},"remittanceInformation":null}}`
	ReceiveHook = `{"type":"RECEIVE","data":{"id":15,"txId":"proxytxid0000000000000000000001","status":"LIQUIDATED","payment":{"amount":"15.00","currency":"BRL"},"endToEndId":"` + E2E +
		`","debtorAccount":{"name":"Fulano","document":"***.982.247-**"}}}`
	RefundHook = `{"type":"REFUND","data":{"id":40,"txId":null,"status":"REFUNDED","payment":{"amount":"50.00","currency":"BRL"},"refunds":[{"status":"LIQUIDATED","payment":{"amount":10.00,"currency":"BRL"},` +
		`"endToEndId":"D13140088202603021200abcdefghijk","eventDate":"2026-03-02T12:01:00.000Z","information":null}],"endToEndId":"` + E2E + `","creditDebitType":"DEBIT","refundId":"r1","rtrId":"D13140088202603021200abcdefghijk","natureza":"ORIGINAL"}}`
	MedHook = `{"event":"med_accepted","med":{"id":3,"endToEnd":"` + E2E + `","status":"ANALYZED","reason":"REFUND_REQUEST","cause":"SCAM","description":null,"analysisResult":"APPROVED","analysisDetails":"ok",` +
		`"requestingBank":{"ispb":"1","name":"a"},"contestedBank":{"ispb":"2","name":"b"},"originalTransaction":{"amount":50.00,"type":"PIX","transactionType":"PIX_IN","name":"n","document":"***.456.789-**","dateTime":"2026-03-02T12:00:00Z"},` +
		`"isReconciled":true,"originalTransactionId":5,"createdAt":"2026-03-02T12:00:00Z","updatedAt":"2026-03-02T12:00:00Z"}}`
)
