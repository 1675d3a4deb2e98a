package httpapi

// JoinPath is joinPath for the external tests: how a violation names a key.
var JoinPath = joinPath
