package main

// dependencyRules is the dependency table of the module: one row per package
// (module-relative), what it is, what its non-test files may import, and what
// it must never reach. docs/architecture.md shows it, in this order, as its
// package list and its dependency rules (go run ./cmd/pixlint -write-docs).
// A new package gets its row here, one line:
//
//	{Pkg: "simulator/refs", Allow: []string{"simulator/pix"}, Never: []string{"net/http"}, Note: "…"},
//
// The direction: the domain (simulator/pix) is pure; the core (simulator)
// reaches HTTP only through webhook and the store only through the interfaces
// of simulator/storage; the transport (simulator/httpapi) never reaches the
// core or the store; the conformance suite is an independent oracle and never
// imports simulator/… or scenarios; the commands wire everything.
var dependencyRules = []Rule{
	// The binary, the transport, the core.
	{Pkg: "cmd/pixsandbox",
		Allow: []string{"cmd/pixsandbox/internal/...", "simulator/...", "conformance/...", "scenarios", "fixtures", "github.com/google/uuid", "github.com/prometheus/client_golang"},
		Note:  "the binary: `serve` (config, wiring, shutdown), the CLI of a running simulator, `conform`, `check-receiver`"},
	{Pkg: "cmd/pixsandbox/internal/trigger", Allow: []string{"simulator/pix", "simulator/sandboxclient", "simulator/events", "scenarios", "fixtures", "github.com/google/uuid"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi"},
		Note:  "the requests `pixsandbox trigger` sends to a running simulator (through sandboxclient) for a scenario or an event, and its summaries of an event"},
	{Pkg: "simulator/httpapi",
		Allow: []string{"simulator/pix", "simulator/wire", "simulator/clock", "simulator/metrics", "simulator/webhook", "simulator/receivercheck",
			"simulator/qrcode", "simulator/faults", "simulator/httpapi/strictjson", "simulator/selfcheck", "scenarios", "docs",
			"github.com/gorilla/mux", "github.com/prometheus/client_golang", "github.com/google/uuid", "github.com/goccy/go-json"},
		Never: []string{"simulator", "simulator/sandboxapi", "simulator/storage", "simulator/badgerstore", "github.com/dgraph-io/badger/v4"},
		Note:  "the contract's HTTP transport: its route table, decoding, the three error shapes, auth, middleware, the request journal; mounts a control plane given to it"},
	{Pkg: "simulator/workspace",
		Allow: []string{"simulator", "simulator/storage", "simulator/pix", "simulator/auth", "simulator/clock", "fixtures", "github.com/google/uuid"},
		Never: []string{"simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4"},
		Note:  "the workspaces of one server: each a simulator over its own slice of the store; creation, registry, expiry, deletion, and which workspace a client id or token names"},
	{Pkg: "simulator/sandboxapi",
		Allow: []string{"simulator/httpapi", "simulator/httpapi/strictjson", "simulator/pix", "simulator/wire", "simulator/webhook",
			"simulator/receivercheck", "simulator/qrcode", "simulator/brcode", "simulator/events", "scenarios", "docs", "github.com/gorilla/mux"},
		Never: []string{"simulator", "simulator/storage", "simulator/badgerstore", "github.com/dgraph-io/badger/v4"},
		Note:  "the `/_sandbox` control plane and the web console: its own route table, one file per resource, mounted by httpapi"},
	{Pkg: "simulator/httpapi/strictjson", Allow: []string{"simulator/pix"}, Never: []string{"net/http"},
		Note: "strict JSON decoding: unknown fields, duplicate keys, type mismatches named by field"},
	{Pkg: "simulator/httpapi/apitest",
		Allow: []string{"simulator/...", "scenarios", "fixtures", "docs", "github.com/gorilla/mux", "github.com/prometheus/client_golang"},
		Note:  "test helpers shared by the httpapi and sandboxapi tests: servers over a real simulator, token and request helpers"},
	{Pkg: "simulator",
		Allow: []string{"simulator/pix", "simulator/brcode", "simulator/ledger", "simulator/clock", "simulator/agenda", "simulator/storage",
			"simulator/webhook", "simulator/receivercheck", "simulator/faults", "simulator/invariants", "simulator/refs", "simulator/auth",
			"simulator/ratelimit", "simulator/delivery", "simulator/refund", "simulator/med", "simulator/limits", "simulator/seed",
			"scenarios", "fixtures", "github.com/brianvoe/gofakeit/v7", "github.com/google/uuid"},
		Never: []string{"simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"},
		Note:  "the application core: one method per operation, the clock read once, one store transaction; the agenda's job handlers"},

	// The core's procedures: functions over slices of a storage.Tx, never the core itself.
	{Pkg: "simulator/auth", Allow: []string{"simulator/pix", "simulator/clock", "simulator/storage", "simulator/faults", "scenarios", "github.com/golang-jwt/jwt/v5", "github.com/google/uuid"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"}, Note: "tokens (issue, check, signing key), client credentials and certificates, their caches, the sandbox test CA"},
	{Pkg: "simulator/ratelimit", Allow: []string{"simulator/pix"}, Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"},
		Note: "a per-key request counter in fixed one-minute windows of simulation time, and its 429 (webhook resends, GET /api/med)"},
	{Pkg: "simulator/refs", Allow: []string{"simulator/pix", "simulator/storage"}, Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"},
		Note: "journal causes (Ref, MEDRef, Parse), refunded counters, quoting and not-found errors shared by the procedures"},
	{Pkg: "simulator/limits", Allow: []string{"simulator/pix", "simulator/storage"}, Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"},
		Note: "the payer limits: per transaction, daily and at night, counted and given back"},
	{Pkg: "simulator/delivery", Allow: []string{"simulator/pix", "simulator/agenda", "simulator/storage", "simulator/webhook", "simulator/ratelimit", "simulator/refs", "github.com/google/uuid"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"}, Note: "the webhook outbox: events and deliveries (Emit), the deliver job, attempts recorded, recovery after a stop, resend"},
	{Pkg: "simulator/refund", Allow: []string{"simulator/pix", "simulator/ledger", "simulator/agenda", "simulator/storage", "simulator/webhook", "simulator/delivery",
		"simulator/refs", "scenarios", "github.com/google/uuid"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"}, Note: "refunds: creation, the sum rule, settlement"},
	{Pkg: "simulator/med", Allow: []string{"simulator/pix", "simulator/ledger", "simulator/agenda", "simulator/storage", "simulator/webhook", "simulator/delivery",
		"simulator/refs", "simulator/refund", "scenarios"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"}, Note: "the MED process: open, receive (block), analyse, cancel, refund; its deadlines and job handlers"},
	{Pkg: "simulator/seed", Allow: []string{"fixtures", "simulator/pix", "simulator/ledger", "simulator/storage", "simulator/webhook", "simulator/auth", "simulator/refs",
		"github.com/brianvoe/gofakeit/v7"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"}, Note: "what a new data dir starts with: banks, fixture accounts, DICT entries, fake accounts"},
	{Pkg: "simulator/invariants", Allow: []string{"simulator/pix", "simulator/ledger", "simulator/storage", "simulator/refs"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/dgraph-io/badger/v4", "github.com/gorilla/mux"}, Note: "the ledger invariant checker: every account's journal, balance, transactions, MED blocks and refunds, one function per check"},

	// The domain and its value forms.
	{Pkg: "simulator/pix", Never: []string{"net/http"},
		Note: "the domain: money, errors (Kind, Code), documents, IDs, keys, each request's rules; no clock, no I/O"},
	{Pkg: "simulator/brcode",
		Note: "the BR Code (EMV QR) codec: encode, parse, CRC16; no clock, no I/O"},
	{Pkg: "simulator/wire", Allow: []string{"simulator/pix"},
		Note: "the JSON forms routes and webhooks share: money, instants, the MED resource"},
	{Pkg: "simulator/ledger", Allow: []string{"simulator/pix"}, Never: []string{"simulator/clock", "github.com/dgraph-io/badger/v4", "net/http"},
		Note: "money movements between pockets (available, blocked, world); Apply, Replay"},

	// Time, jobs, storage.
	{Pkg: "simulator/clock",
		Note: "Clock, Real (wall time + an offset that only grows), Virtual; the one package that reads the wall clock"},
	{Pkg: "simulator/agenda", Allow: []string{"simulator/clock", "github.com/robfig/cron/v3"}, Never: []string{"github.com/dgraph-io/badger/v4"},
		Note: "durable jobs on the simulation clock, run in due order; cron's parser and Schedule.Next only"},
	{Pkg: "simulator/storage", Allow: []string{"simulator/pix", "simulator/ledger", "simulator/agenda", "simulator/webhook"},
		Never: []string{"simulator", "simulator/httpapi", "github.com/dgraph-io/badger/v4"},
		Note:  "the Store/Tx interfaces the core writes through"},
	{Pkg: "simulator/badgerstore", Allow: []string{"simulator/pix", "simulator/ledger", "simulator/agenda", "simulator/storage", "simulator/webhook", "simulator/badgerstore/storecache", "simulator/badgerstore/storecodec", "simulator/selfcheck", "github.com/dgraph-io/badger/v4"},
		Never: []string{"simulator", "simulator/httpapi"},
		Note:  "storage.Store over Badger: the single writer (group commit), shared read snapshots, keys and indexes"},
	{Pkg: "simulator/badgerstore/storecache", Never: []string{"simulator", "simulator/storage", "github.com/dgraph-io/badger/v4"},
		Note: "the store's read caches, versioned by commit: decoded records few writes change, and the bytes of records just written"},
	{Pkg: "simulator/badgerstore/storecodec", Allow: []string{"simulator/pix", "simulator/webhook", "github.com/goccy/go-json"},
		Never: []string{"simulator", "simulator/storage", "simulator/badgerstore", "github.com/dgraph-io/badger/v4"},
		Note:  "how the store writes a record as bytes: JSON through goccy/go-json, transactions without their zero fields, webhook events with their body as JSON"},

	{Pkg: "simulator/selfcheck", Never: []string{"simulator", "simulator/storage", "simulator/badgerstore", "simulator/httpapi"},
		Note: "whether a test binary (not its benchmarks) runs: the switch for the checks the store and the transport make, in tests only, of what they otherwise trust"},

	// Webhooks and the other edges.
	{Pkg: "simulator/webhook", Allow: []string{"simulator/pix", "simulator/wire", "simulator/faults", "github.com/standard-webhooks/standard-webhooks/libraries"},
		Never: []string{"simulator", "simulator/storage", "simulator/badgerstore", "simulator/agenda", "github.com/dgraph-io/badger/v4"},
		Note:  "webhook targets, fan-out, retry policy, payloads, one signed HTTP attempt (Dispatcher), the worker pool"},
	{Pkg: "simulator/receivercheck", Allow: []string{"simulator/pix", "simulator/webhook", "github.com/google/uuid"},
		Never: []string{"simulator", "simulator/storage", "simulator/badgerstore", "simulator/httpapi", "github.com/gorilla/mux"},
		Note:  "checks a partner's webhook receiver with the simulator's own payloads and dispatcher"},
	{Pkg: "simulator/events", Allow: []string{"simulator/pix", "simulator/webhook", "simulator/wire", "scenarios", "fixtures", "github.com/google/uuid"},
		Never: []string{"simulator", "simulator/storage", "simulator/badgerstore", "simulator/httpapi", "simulator/sandboxapi", "github.com/gorilla/mux"},
		Note:  "the recipes that make the sandbox produce each webhook on request (POST /_sandbox/events/{event}, pixsandbox trigger EVENT), through the core's public operations"},
	{Pkg: "simulator/qrcode", Allow: []string{"github.com/boombuler/barcode"}, Never: []string{"simulator", "simulator/pix", "net/http"},
		Note: "the QR PNG of a BR Code"},
	{Pkg: "simulator/metrics", Allow: []string{"github.com/prometheus/client_golang"}, Never: []string{"simulator", "simulator/badgerstore"},
		Note: "Prometheus collectors on an injected registry"},
	{Pkg: "simulator/faults",
		Note: "named wrong behaviours for the suite's self-check; `faults.On` is constant false without the `faults` build tag"},
	{Pkg: "simulator/sandboxclient", Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi"},
		Note: "an HTTP client of a running simulator, for the CLI and the console's tests (a client sees HTTP only)"},
	{Pkg: "simulator/simulatortest", Allow: []string{"simulator/...", "fixtures", "github.com/prometheus/client_golang"},
		Note: "real simulators for the project's own tests: in-memory Badger, virtual clock at the fixture epoch, fixtures; the internals exposed (other modules use simulator/sandboxtest)"},
	{Pkg: "simulator/wiring",
		Allow: []string{"simulator/badgerstore", "simulator/httpapi", "simulator/pix", "simulator/sandboxapi", "simulator/storage", "simulator/workspace"},
		Note:  "the adapters between a server's workspaces and its store, transport and control plane, shared by `pixsandbox serve` and simulator/sandboxtest"},
	{Pkg: "simulator/sandboxtest",
		Allow: []string{"simulator", "simulator/badgerstore", "simulator/clock", "simulator/httpapi", "simulator/pix", "simulator/sandboxapi",
			"simulator/storage", "simulator/workspace", "simulator/wiring", "fixtures", "github.com/prometheus/client_golang"},
		Never: []string{"simulator/simulatortest", "simulator/httpapi/apitest"},
		Note:  "the embeddable sandbox for other modules' Go tests (a stable API): the server of `serve --in-memory --clock virtual` on a loopback port for a test's lifetime, its accounts, tokens, clients, clock and workspaces"},

	// Data and documents.
	{Pkg: "scenarios", Allow: []string{"simulator/pix"}, Never: []string{"simulator", "simulator/badgerstore", "net/http"},
		Note: "the `X-Sandbox-Scenario` catalogue: one row per scenario"},
	{Pkg: "fixtures",
		Note: "embedded seed accounts, DICT keys, banks, certificates and the sandbox test CA"},
	{Pkg: "docs", Allow: []string{"go.yaml.in/yaml/v3"}, Never: []string{"simulator/..."},
		Note: "docs/openapi.yaml embedded for `/_sandbox/docs`, and the Postman collection generated from it"},

	// The conformance suite: an independent oracle.
	{Pkg: "conformance", Allow: []string{"conformance/framework/...", "fixtures", "github.com/onsi/ginkgo/v2", "github.com/onsi/gomega"},
		Never: []string{"simulator/...", "scenarios", "cmd/..."},
		Note:  "the Ginkgo specs (non-test files, one per resource) that check any implementation over HTTP"},
	{Pkg: "conformance/framework", Allow: []string{"conformance/framework/apiclient", "conformance/framework/codec", "conformance/framework/sandbox",
		"fixtures", "github.com/onsi/ginkgo/v2", "github.com/onsi/gomega"},
		Never: []string{"simulator/...", "scenarios", "cmd/..."},
		Note:  "the suite's runner: flags, HTTP client, webhook receiver, control-plane client, labels, coverage report"},

	{Pkg: "conformance/contract", Allow: []string{"conformance/framework/apiclient", "conformance/framework/codec", "github.com/golang-jwt/jwt/v5", "github.com/standard-webhooks/standard-webhooks/libraries"},
		Never: []string{"simulator/...", "scenarios", "cmd/...", "conformance/framework", "github.com/onsi/ginkgo/v2", "github.com/onsi/gomega"},
		Note:  "the contract's rules as pure functions over one exchange (route table, request and response rules) and the bounded state model: the one source of the validating proxy's checks"},
	{Pkg: "conformance/proxy", Allow: []string{"conformance/contract"},
		Never: []string{"simulator/...", "scenarios", "cmd/...", "conformance/framework", "github.com/onsi/ginkgo/v2", "github.com/onsi/gomega"},
		Note:  "the validating proxy (`pixsandbox proxy`): forwards traffic unchanged, judges each exchange with conformance/contract, keeps and reports the findings"},
	{Pkg: "conformance/framework/apiclient", Never: []string{"simulator/...", "scenarios", "cmd/..."},
		Note: "the suite's HTTP client of the public API: requests, responses, JSON paths, money amounts"},
	{Pkg: "conformance/framework/codec", Allow: []string{"conformance/framework/apiclient"}, Never: []string{"simulator/...", "scenarios", "cmd/..."},
		Note: "the suite's own BR Code parser and rules, JWT and certificates (never the simulator's)"},
	{Pkg: "conformance/framework/sandbox", Allow: []string{"conformance/framework/apiclient"}, Never: []string{"simulator/...", "scenarios", "cmd/..."},
		Note: "the suite's client of a `/_sandbox` control plane: accounts, clock, jobs, payments, MED, DICT, webhooks"},

	// Tools.
	{Pkg: "cmd/pixfixtures", Allow: []string{"fixtures", "simulator/pix", "github.com/brianvoe/gofakeit/v7"},
		Note: "regenerates fixtures/ from a fixed seed (make fixtures)"},
	{Pkg: "cmd/pixsoak", Allow: []string{"fixtures", "simulator/pix", "github.com/google/uuid"},
		Never: []string{"simulator", "simulator/badgerstore", "simulator/httpapi"},
		Note:  "crash soak: SIGKILLs the real binary under load, then checks nothing acknowledged was lost (make soak)"},
	{Pkg: "cmd/pixload", Allow: []string{"github.com/prometheus/common", "github.com/prometheus/client_model", "github.com/HdrHistogram/hdrhistogram-go"}, Never: []string{"simulator/..."},
		Note: "load runs against the real binary (make bench); it reads the server's /metrics with Prometheus's text parser"},
	{Pkg: "cmd/pixlint", Allow: []string{"github.com/fzipp/gocyclo"}, Never: []string{"simulator/...", "conformance/...", "scenarios", "fixtures", "docs"},
		Note: "the repository's own lint (make lint): the dependency table, the wall clock, complexity, package size, the fuzz list, staticcheck"},
}

// layerTable is the module's layers, top first (layers.go): every import of
// a non-test file goes to the package's own layer or one below. The docs
// group the package list by them (docs/architecture.md, "Packages").
var layerTable = []Layer{
	{Name: "commands", Pkgs: []string{"cmd/..."},
		Note: "the binaries and tools: they wire everything and nothing imports them"},
	{Name: "suite", Pkgs: []string{"conformance/..."},
		Note: "the conformance suite and the validating proxy: an independent oracle that speaks HTTP to any implementation and imports nothing of simulator/"},
	{Name: "kits", Pkgs: []string{"simulator/wiring", "simulator/sandboxtest", "simulator/simulatortest", "simulator/httpapi/apitest"},
		Note: "a whole server put together: the wiring `serve` and the embeddable sandbox share, and the test kits"},
	{Name: "edges", Pkgs: []string{"simulator/httpapi", "simulator/httpapi/strictjson", "simulator/sandboxapi", "simulator/events", "simulator/workspace"},
		Note: "what a client reaches: the contract's HTTP transport, the `/_sandbox` control plane and console with the recipes behind its routes, the workspaces that route a request to its simulator"},
	{Name: "core", Pkgs: []string{"simulator"},
		Note: "the application core: one method per operation, the clock read once, one store transaction"},
	{Name: "procedures", Pkgs: []string{"simulator/auth", "simulator/ratelimit", "simulator/refs", "simulator/limits", "simulator/delivery",
		"simulator/refund", "simulator/med", "simulator/seed", "simulator/invariants"},
		Note: "the core's procedures: functions over the slices of the store they need (storage's narrow Tx interfaces) that the core calls, never the core itself"},
	{Name: "infrastructure", Pkgs: []string{"simulator/storage", "simulator/badgerstore/...", "simulator/clock", "simulator/agenda",
		"simulator/webhook", "simulator/receivercheck", "simulator/qrcode", "simulator/metrics", "simulator/faults", "simulator/selfcheck",
		"simulator/sandboxclient"},
		Note: "time, jobs, the store, webhooks on the wire, metrics, QR images, clients: what the core stands on"},
	{Name: "domain", Pkgs: []string{"simulator/pix", "simulator/brcode", "simulator/wire", "simulator/ledger", "scenarios", "fixtures", "docs"},
		Note: "the domain's values and rules, pure; the scenario catalogue, the fixtures and the documents as data"},
}
