package main

// Temporary exceptions: the functions and packages over the limits, and the
// staticcheck findings, there when the checks were introduced (issue 16); the
// limits capped at their measure then, so they can shrink but not grow. The
// tables are meant to be empty: remove a line when its code is fixed (the
// lint reports a line no longer needed).

// complexityExceptions: functions over cyclomatic complexity 25.
var complexityExceptions = []ComplexityException{
	{"simulator", "(*Simulator).checkHistory", 60},
}

// sizeExceptions: packages over 3,000 lines of non-test Go.
var sizeExceptions = []SizeException{
	{"simulator", 4628},
}

// staticcheckExceptions: findings of staticcheck, by file and check.
var staticcheckExceptions = []StaticcheckException{
}
