package contract

// The resource and body tables of the contract as field rows. A resource
// field is required when its table lists it without saying it is optional
// or conditional and the request cannot leave it out; a field the request
// may omit, and the table marks optional ("may be null", "optional",
// "present only when"), is checked only when present.

// The sections of the resources whose fields the state rules compare
// between answers: a finding about one cites its resource.
const (
	ResTransfer = "Resources > PIX transfer (DICT route) response"
	ResCob      = "Resources > Immediate charge (cob)"
	ResRefund   = "Resources > Refund (devolucao)"
	ResMED      = "Resources > MED"
	ResListing  = "Resources > Transaction listing item"
)

const (
	resToken     = "Resources > Access token"
	resBalance   = "Resources > Balance (Central Bank-compatible)"
	resCashOut   = "Resources > Cash-out transaction (response)"
	resCashIn    = "Resources > Cash-in charge (response)"
	resRefundIn  = "Resources > Refund-in (response)"
	resWebhook   = "Resources > Webhook registration"
	secStdBal    = "What the service does (GET /balance); Resources > Balance (Central Bank-compatible), mapping"
	secMEDRoute  = "Endpoints > GET /api/med"
	secResend    = "Endpoints > POST /api/resend-webhook/{transactionIdentifier}"
	secWebhooks  = "Endpoints > POST /api/webhooks (currently disabled)"
	secWebhooksG = "Endpoints > GET /api/webhooks (currently disabled)"
)

var (
	cobStatuses    = []string{"ATIVA", "CONCLUIDA", "REMOVIDA_PELO_USUARIO_RECEBEDOR", "REMOVIDA_PELO_PSP"}
	refundStatuses = []string{"EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO"}
	naturezas      = []string{"ORIGINAL", "RETIRADA", "MED_OPERACIONAL", "MED_FRAUDE"}
	txStatuses     = []string{"PENDING", "CONFIRMED", "ERROR"}
	txTypes        = []string{"PAYMENT", "WITHDRAW", "REFUND_IN", "REFUND_OUT"}
	eventTypes     = []string{"cash_in", "cash_out", "refund_in", "refund_out", "med_created", "med_accepted", "med_rejected"}
)

// withPrefix returns rows with prefix put before every path.
func withPrefix(prefix string, rows []field) []field {
	out := make([]field, len(rows))
	for i, r := range rows {
		r.path = prefix + r.path
		out[i] = r
	}
	return out
}

func section(s string, rows []field) []field {
	out := make([]field, len(rows))
	for i, r := range rows {
		if r.section == "" {
			r.section = s
		}
		out[i] = r
	}
	return out
}

var tokenResponse = section(resToken, []field{
	{path: "access_token", typ: tString, required: true, format: fJWT},
	{path: "token_type", typ: tString, required: true, enum: []string{"Bearer"}},
	{path: "expires_in", typ: tNumber, required: true, enum: []string{"1800"}},
})

var balanceResponse = section(resBalance, []field{
	{path: "data", typ: tArray, required: true},
	{path: "data[]", typ: tObject},
	{path: "data[].eventDate", typ: tString, required: true, format: fDate, clock: true},
	{path: "data[].balanceAmount", typ: tObject, required: true},
	{path: "data[].balanceAmount.available", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "data[].balanceAmount.blocked", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "data[].balanceAmount.overdraft", typ: tNumber, required: true, format: fMoneyNumber},
})

var standardBalanceResponse = section(secStdBal, []field{
	{path: "grossBalance", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "blockedBalance", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "netBalance", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "consultedAt", typ: tString, required: true, format: fDate, clock: true},
})

var transferResponse = section(ResTransfer, []field{
	{path: "endToEndId", typ: tString, required: true},
	{path: "eventDate", typ: tString, required: true, format: fDate, clock: true},
	{path: "id", typ: tNumber, required: true},
	{path: "payment", typ: tObject, required: true},
	{path: "payment.amount", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "type", typ: tString, required: true, enum: []string{"PENDING", "COMPLETED", "ERROR"}},
})

var cashOutResponse = section(resCashOut, []field{
	{path: "transactionId", typ: tString, required: true, format: fUUID},
	{path: "externalId", typ: tString, required: true},
	{path: "status", typ: tString, required: true, enum: txStatuses},
	{path: "generateTime", typ: tString, required: true, format: fDate, clock: true},
})

var cashInResponse = section(resCashIn, []field{
	{path: "transactionId", typ: tString, required: true},
	{path: "correlationId", typ: tString, required: true, format: fUUID},
	{path: "externalId", typ: tString, required: true},
	{path: "status", typ: tString, required: true, enum: []string{"PENDING"}},
	{path: "pixCode", typ: tString, required: true, format: fBRCode},
	{path: "generateTime", typ: tString, required: true, format: fDate, clock: true},
	{path: "expirationDate", typ: tString, required: true, format: fDate},
	{path: "qrCodeImage", typ: tString, format: fBase64},
})

// cobResponse is the cob resource of PUT, GET and PATCH /cob/{txid}.
// calendario.criacao is a clock reading only on creation (see cobCreated).
var cobResponse = section(ResCob, []field{
	{path: "calendario", typ: tObject, required: true},
	{path: "calendario.criacao", typ: tString, required: true, format: fDate},
	{path: "calendario.expiracao", typ: tNumber, required: true},
	{path: "txid", typ: tString, required: true, format: fTxid},
	{path: "revisao", typ: tNumber, required: true},
	{path: "loc", typ: tObject, required: true},
	{path: "loc.id", typ: tNumber, required: true},
	{path: "loc.location", typ: tString, required: true, format: fBRCode},
	{path: "loc.tipoCob", typ: tString, required: true, enum: []string{"cob"}},
	{path: "location", typ: tString, required: true},
	{path: "status", typ: tString, required: true, enum: cobStatuses},
	{path: "devedor", typ: tObject},
	{path: "devedor.cpf", typ: tString, format: fCPF},
	{path: "devedor.cnpj", typ: tString, format: fCNPJ},
	{path: "devedor.nome", typ: tString},
	{path: "valor", typ: tObject, required: true},
	{path: "valor.original", typ: tString, required: true, format: fMoneyString},
	{path: "valor.modalidadeAlteracao", typ: tNumber},
	{path: "chave", typ: tString, required: true, maxLen: 77},
	{path: "solicitacaoPagador", typ: tString, maxLen: 140},
	{path: "infoAdicionais", typ: tArray},
	{path: "infoAdicionais[]", typ: tObject},
	{path: "infoAdicionais[].nome", typ: tString, required: true},
	{path: "infoAdicionais[].valor", typ: tString, required: true},
})

var cobCreated = append(append([]field(nil), cobResponse...),
	field{path: "calendario.criacao", typ: tString, format: fDate, clock: true, section: ResCob})

var refundResponse = section(ResRefund, []field{
	{path: "id", typ: tString, required: true, maxLen: 35},
	{path: "rtrId", typ: tString, required: true, format: fAlnum32},
	{path: "valor", typ: tString, required: true, format: fMoneyString},
	{path: "natureza", typ: tString, required: true, enum: naturezas},
	{path: "descricao", typ: tString, maxLen: 140},
	{path: "horario", typ: tObject, required: true},
	{path: "horario.solicitacao", typ: tString, required: true, format: fDate, clock: true},
	{path: "status", typ: tString, required: true, enum: refundStatuses},
	{path: "motivo", typ: tString},
})

var refundInResponse = section(resRefundIn, []field{
	{path: "transactionId", typ: tString, required: true},
	{path: "externalId", typ: tString, required: true},
	{path: "status", typ: tString, required: true, enum: txStatuses},
	{path: "refundValue", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "providerTransactionId", typ: tString, required: true},
	{path: "generateTime", typ: tString, required: true, format: fDate, clock: true},
})

var medItem = section(ResMED, []field{
	{path: "id", typ: tNumber, required: true},
	{path: "endToEnd", typ: tString, required: true, format: fE2E},
	{path: "status", typ: tString, required: true, enum: []string{"OPEN", "RECEIVED", "CANCELLED", "ANALYZED"}},
	{path: "reason", typ: tString, required: true, enum: []string{"REFUND_REQUEST", "REFUND_CANCELLATION"}},
	{path: "cause", typ: tString | tNull, required: true},
	{path: "description", typ: tString | tNull, required: true},
	{path: "analysisResult", typ: tString | tNull, required: true, enum: []string{"APPROVED", "REJECTED"}},
	{path: "analysisDetails", typ: tString | tNull, required: true},
	{path: "requestingBank", typ: tObject, required: true},
	{path: "requestingBank.ispb", typ: tString, required: true},
	{path: "requestingBank.name", typ: tString, required: true},
	{path: "contestedBank", typ: tObject, required: true},
	{path: "contestedBank.ispb", typ: tString, required: true},
	{path: "contestedBank.name", typ: tString, required: true},
	{path: "originalTransaction", typ: tObject | tNull, required: true},
	{path: "originalTransaction.amount", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "originalTransaction.type", typ: tString, required: true},
	{path: "originalTransaction.transactionType", typ: tString, required: true},
	{path: "originalTransaction.name", typ: tString, required: true},
	{path: "originalTransaction.document", typ: tString, required: true},
	{path: "originalTransaction.dateTime", typ: tString, required: true, format: fDate},
	{path: "isReconciled", typ: tBool, required: true},
	{path: "originalTransactionId", typ: tNumber | tNull, required: true},
	{path: "createdAt", typ: tString, required: true, format: fDate},
	{path: "updatedAt", typ: tString, required: true, format: fDate},
})

var medListResponse = append(section(secMEDRoute, []field{
	{path: "data", typ: tArray, required: true},
	{path: "data[]", typ: tObject},
	{path: "metadata", typ: tObject, required: true},
	{path: "metadata.total", typ: tNumber, required: true},
	{path: "metadata.page", typ: tNumber, required: true},
	{path: "metadata.pageSize", typ: tNumber, required: true},
	{path: "metadata.totalPages", typ: tNumber, required: true},
}), withPrefix("data[].", medItem)...)

var listingItem = section(ResListing, []field{
	{path: "transactionId", typ: tString, required: true},
	{path: "externalId", typ: tString, required: true},
	{path: "status", typ: tString, required: true, enum: []string{"Pendente", "Confirmado", "Error"}},
	{path: "operationType", typ: tString, required: true, enum: []string{"Pix in", "Pix out", "Refund in", "Refund out"}},
	{path: "movementType", typ: tString, required: true, enum: []string{"CREDIT", "DEBIT"}},
	{path: "originalAmount", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "feeAmount", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "finalAmount", typ: tNumber, required: true, format: fMoneyNumber},
	{path: "endToEndId", typ: tString, required: true},
	{path: "createdAt", typ: tString, required: true, format: fDate},
	{path: "processedAt", typ: tString, required: true, format: fDate},
	{path: "counterpart", typ: tObject, required: true},
	{path: "counterpart.name", typ: tString, required: true},
	{path: "counterpart.document", typ: tString, required: true},
	{path: "counterpart.bank", typ: tObject, required: true},
	{path: "counterpart.bank.bankISPB", typ: tString, required: true},
	{path: "counterpart.bank.bankName", typ: tString, required: true},
	{path: "counterpart.bank.bankCode", typ: tString, required: true},
	{path: "counterpart.bank.accountBranch", typ: tString, required: true},
	{path: "counterpart.bank.accountNumber", typ: tString, required: true},
})

var listingResponse = append(section(ResListing+" (list envelope)", []field{
	{path: "data", typ: tArray, required: true},
	{path: "data[]", typ: tObject},
	{path: "metadata", typ: tObject, required: true},
	{path: "metadata.page", typ: tNumber, required: true},
	{path: "metadata.size", typ: tNumber, required: true},
	{path: "metadata.total", typ: tNumber, required: true},
	{path: "metadata.totalPages", typ: tNumber, required: true},
	{path: "metadata.hasNext", typ: tBool, required: true},
	{path: "metadata.hasPrevious", typ: tBool, required: true},
}), withPrefix("data[].", listingItem)...)

// keyListingResponse: "at most 1000 results in total".
var keyListingResponse = append(listingResponse[:len(listingResponse):len(listingResponse)],
	field{path: "metadata.total", typ: tNumber, required: true, max: "1000", section: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}"})

var webhookCreateResponse = section(secWebhooks, []field{
	{path: "success", typ: tBool, required: true},
	{path: "message", typ: tString, required: true},
})

// webhookListResponse: the route "currently answers 200 with an empty list";
// the intended fields are checked when present.
var webhookListResponse = append(section(secWebhooksG, []field{
	{path: "accountId", typ: tNumber},
	{path: "webhooks", typ: tArray},
	{path: "webhooks[]", typ: tObject},
	{path: "total", typ: tNumber},
}), withPrefix("webhooks[].", section(resWebhook, []field{
	{path: "id", typ: tNumber, required: true},
	{path: "type", typ: tString, required: true, enum: eventTypes},
	{path: "url", typ: tString, required: true},
	{path: "headers", typ: tObject, required: true},
	{path: "isActive", typ: tBool, required: true},
	{path: "createdAt", typ: tString, required: true, format: fDate},
}))...)

var resendResponse = section(secResend, []field{
	{path: "message", typ: tString, required: true},
	{path: "webhookLogId", typ: tNumber, required: true},
	{path: "sentAt", typ: tString, required: true, format: fDate, clock: true},
	{path: "statusCode", typ: tNumber, required: true},
})

// Request bodies.

var tokenRequest = section("Endpoints > POST /api/auth/token", []field{
	{path: "clientId", typ: tString, required: true, format: fUUIDv4},
	{path: "clientSecret", typ: tString, required: true},
})

var transferRequest = section(secDict, []field{
	{path: "pixKey", typ: tString, required: true, maxLen: 77},
	{path: "creditorDocument", typ: tString, format: fDocument},
	{path: "priority", typ: tString, enum: []string{"HIGH", "NORM"}},
	{path: "description", typ: tString},
	{path: "expiration", typ: tNumber, min: "1", max: "10800"},
	{path: "payment", typ: tObject, required: true},
	{path: "payment.currency", typ: tString, required: true},
	{path: "payment.amount", typ: tNumber, required: true, format: fMoneyNumber, min: "0.01"},
	{path: "ispbDeny", typ: tArray},
	{path: "ispbDeny[]", typ: tString},
})

var cashOutRequest = section(secCashOut, []field{
	{path: "value", typ: tNumber, required: true, format: fMoneyNumber, min: "0.01"},
	{path: "externalId", typ: tString, required: true},
	{path: "description", typ: tString, maxLen: 140},
	{path: "details", typ: tObject, required: true},
	{path: "details.key", typ: tString, required: true},
	{path: "details.keyType", typ: tString, required: true, enum: []string{"DOCUMENT", "EMAIL", "PHONE", "RANDOM"}},
	{path: "details.name", typ: tString, required: true, maxLen: 100},
	{path: "details.document", typ: tString, required: true, format: fDocument},
})

var cashInRequest = section(secCashIn, []field{
	{path: "transaction", typ: tObject, required: true},
	{path: "transaction.value", typ: tNumber, required: true, format: fMoneyNumber, min: "0.01"},
	{path: "transaction.description", typ: tString, required: true, maxLen: 140},
	{path: "transaction.externalId", typ: tString, required: true},
	{path: "transaction.expirationTime", typ: tNumber, min: "30", max: "604800"},
	{path: "transaction.generateQrCode", typ: tBool},
	{path: "payer", typ: tObject, required: true},
	{path: "payer.fullName", typ: tString, required: true, maxLen: 100},
	{path: "payer.document", typ: tString, required: true, format: fDocument},
	{path: "additionalInfo", typ: tObject, maxLen: 10},
	{path: "splits", typ: tArray, maxLen: 10},
	{path: "splits[]", typ: tObject},
	{path: "splits[].pixKey", typ: tString, required: true, maxLen: 255},
	{path: "splits[].pixKeyType", typ: tString, required: true, enum: []string{"EMAIL", "PHONE", "CPF", "CNPJ", "RANDOM"}},
	{path: "splits[].name", typ: tString, required: true, maxLen: 255},
	{path: "splits[].document", typ: tString, required: true, format: fDocument},
	{path: "splits[].type", typ: tString, required: true, enum: []string{"FIXED", "PERCENTAGE"}},
	{path: "splits[].value", typ: tNumber, required: true, min: "0.01"},
	{path: "splits[].immediate", typ: tBool},
})

var cobRequest = section(secCob, []field{
	{path: "calendario", typ: tObject, required: true},
	{path: "calendario.expiracao", typ: tNumber},
	{path: "devedor", typ: tObject},
	{path: "devedor.cpf", typ: tString, format: fCPF},
	{path: "devedor.cnpj", typ: tString, format: fCNPJ},
	{path: "devedor.nome", typ: tString},
	{path: "valor", typ: tObject, required: true},
	{path: "valor.original", typ: tString, required: true, format: fMoneyString},
	{path: "valor.modalidadeAlteracao", typ: tNumber},
	{path: "chave", typ: tString, maxLen: 77},
	{path: "solicitacaoPagador", typ: tString, maxLen: 140},
	{path: "infoAdicionais", typ: tArray},
	{path: "infoAdicionais[]", typ: tObject},
	{path: "infoAdicionais[].nome", typ: tString, required: true},
	{path: "infoAdicionais[].valor", typ: tString, required: true},
})

var refundRequest = section(secRefund, []field{
	{path: "valor", typ: tString, required: true, format: fMoneyString},
	{path: "natureza", typ: tString, enum: []string{"ORIGINAL", "RETIRADA"}},
	{path: "descricao", typ: tString, maxLen: 140},
})

var refundInRequest = section(secRefundIn, []field{
	{path: "refundValue", typ: tNumber, required: true, format: fMoneyNumber, min: "0.01"},
	{path: "reason", typ: tString},
	{path: "externalId", typ: tString},
})

var webhookCreateRequest = section(secWebhooks, []field{
	{path: "url", typ: tString, required: true, format: fHTTPS},
	{path: "eventType", typ: tString, required: true, enum: eventTypes},
	{path: "headers", typ: tArray, maxLen: 5},
	{path: "headers[]", typ: tObject},
	{path: "headers[].key", typ: tString, required: true},
	{path: "headers[].value", typ: tString, required: true},
})

var resendRequest = section(secResend, []field{
	{path: "url", typ: tString},
})

// Query parameters, each row naming one parameter (values are strings).

var medQuery = section(secMEDRoute, []field{
	{path: "status", typ: tString, enum: []string{"OPEN", "RECEIVED", "CANCELLED", "ANALYZED"}},
	{path: "isReconciled", typ: tString, enum: []string{"true", "false"}},
	{path: "startDate", typ: tString, format: fDate},
	{path: "endDate", typ: tString, format: fDate},
	{path: "page", typ: tString | tNumber, format: fInteger, min: "1"},
	{path: "pageSize", typ: tString | tNumber, format: fInteger, min: "1", max: "100"},
})

func listingQuery(sec, maxSize string) []field {
	return section(sec, []field{
		{path: "page", typ: tString | tNumber, format: fInteger, min: "1"},
		{path: "size", typ: tString | tNumber, format: fInteger, min: "1", max: maxSize},
		{path: "status", typ: tString, enum: txStatuses},
		{path: "type", typ: tString, enum: txTypes},
		{path: "startDate", typ: tString, format: fDate},
		{path: "endDate", typ: tString, format: fDate},
	})
}
