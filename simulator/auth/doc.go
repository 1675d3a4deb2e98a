// Package auth is the sandbox's authentication: access tokens issued after
// the spec's checks in their documented order (Service.IssueToken) and
// verified on every protected request (Service.Authenticate), both on the
// simulation clock; the signing key kept in the store; the caches of verified
// tokens and decoded certificate headers; and the test CA that issues client
// certificates to the accounts the control plane creates.
//
// Its slice of the store: the signing key in the metadata (storage.MetaTx),
// and, read in its own transactions, the credentials and certificates
// (storage.CredentialTx) and whether an account exists (storage.AccountTx).
package auth
