package badgerstore

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Key layout. Numbers are zero-padded so that byte order is numeric order.
//
//	acct/<id>                 pix.Account
//	bal/<id>                  balanceRecord (available, blocked in centavos; journal sequence)
//	set/<id>                  pix.Settings (limits, fee)
//	dict/<key>                pix.DictEntry
//	jrnl/<id>/<seq>           ledger.Entry, per account touched, in application order
//	cred/<clientId>           pix.Credential (clientId lowercased)
//	cert/<fingerprint>        pix.Certificate
//	meta/<name>               JSON metadata (signing key, clock state, seed marker, counters)
//	job/<due>/<id>            agenda.Job; due is Unix nanoseconds, so iteration is due order
//	jobid/<id>                the job's current job/ key
//	jobdone/<id>              doneRecord of a finished job
const (
	prefixAccount  = "acct/"
	prefixBalance  = "bal/"
	prefixSettings = "set/"
	prefixDict     = "dict/"
	prefixJournal  = "jrnl/"
	prefixCred     = "cred/"
	prefixCert     = "cert/"
	prefixMeta     = "meta/"
	prefixJob      = "job/"
	prefixJobID    = "jobid/"
	prefixJobDone  = "jobdone/"
	prefixTx       = "tx/"
	prefixTxAcct   = "ix/txacct/" // an account's transactions in time order (txAcctKey)
	// prefixTargetIndex is the webhook targets' index (webhook.go).
	prefixTargetIndex = "ix/whtgt/"
	keyAccountSeq     = "meta/seq/account"
)

func accountKey(id pix.AccountID) []byte  { return []byte(prefixAccount + num(int64(id))) }
func balanceKey(id pix.AccountID) []byte  { return []byte(prefixBalance + num(int64(id))) }
func settingsKey(id pix.AccountID) []byte { return []byte(prefixSettings + num(int64(id))) }
func dictKey(key string) []byte           { return []byte(prefixDict + key) }
func journalPrefix(id pix.AccountID) []byte {
	return []byte(prefixJournal + num(int64(id)) + "/")
}
func journalKey(id pix.AccountID, seq uint64) []byte {
	return append(journalPrefix(id), num(int64(seq))...)
}
func credKey(clientID string) []byte { return []byte(prefixCred + strings.ToLower(clientID)) }
func certKey(fp string) []byte       { return []byte(prefixCert + pix.NormalizeFingerprint(fp)) }
func metaKey(name string) []byte     { return []byte(prefixMeta + name) }
func jobKey(due time.Time, id string) []byte {
	return []byte(prefixJob + num(due.UnixNano()) + "/" + id)
}

// jobKeyDue reads the due time (Unix nanoseconds) out of a job/ key.
func jobKeyDue(key []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(key, []byte(prefixJob))
	if !ok || len(rest) < numWidth+1 || rest[numWidth] != '/' {
		return 0, false
	}
	return parseNum(rest[:numWidth])
}
func jobIDKey(id string) []byte   { return []byte(prefixJobID + id) }
func jobDoneKey(id string) []byte { return []byte(prefixJobDone + id) }

// numWidth is the width of the numbers num writes.
const numWidth = 20

// parseNum reads a number num wrote (numWidth digits).
func parseNum(b []byte) (int64, bool) {
	if len(b) != numWidth || b[0] < '0' || b[0] > '9' { // ParseInt would take a sign
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

func num(n int64) string {
	if n < 0 {
		n = 0 // ids and times before 1970 do not occur; clamp to keep the order total
	}
	var b [numWidth]byte
	for i := numWidth - 1; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[:])
}
