package main

// Temporary exceptions: the functions and packages over the limits, and the
// staticcheck findings, there when the checks were introduced (issue 16); the
// limits capped at their measure then, so they can shrink but not grow. The
// tables are meant to be empty: remove a line when its code is fixed (the
// lint reports a line no longer needed).

// complexityExceptions: functions over cyclomatic complexity 25.
var complexityExceptions = []ComplexityException{
	{"simulator", "(*Simulator).checkHistory", 60},
	{"cmd/pixsandbox", "cliWebhooks", 36},
	{"cmd/pixsandbox", "cliRequests", 34},
	{"cmd/pixsandbox", "cliListen", 31},
	{"conformance/framework", "BRCodeProblems", 29},
	{"conformance/framework", "ParseBRCode", 29},
	{"cmd/pixsoak", "(*soak).checkOps", 28},
	{"cmd/pixload", "run", 27},
	{"cmd/pixsandbox", "(Config).Validate", 26},
}

// sizeExceptions: packages over 3,000 lines of non-test Go.
var sizeExceptions = []SizeException{
	{"conformance/framework", 4945},
	{"simulator", 4628},
	{"cmd/pixsandbox", 3162},
}

// staticcheckExceptions: findings of staticcheck, by file and check.
var staticcheckExceptions = []StaticcheckException{
	{"cmd/pixsandbox/cli_clock.go", "SA4006"},
	{"cmd/pixsandbox/cli_listen_test.go", "U1000"},
	{"cmd/pixsoak/verify.go", "U1000"},
	{"simulator/httpapi/errors.go", "U1000"},
	{"simulator/httpapi/sandbox_listen.go", "SA4006"},
	{"simulator/httpapi/transactions_test.go", "SA4006"},
}
