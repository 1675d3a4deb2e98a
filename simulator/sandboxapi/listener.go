package sandboxapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Listeners (pixsandbox listen): temporary webhook targets for every event
// type of an account, or of every account, pointing at a developer's local
// URL. A listener is a lease: its client renews it while it runs, and when
// the lease runs out (the client stopped or crashed) the server removes the
// targets it made. The lease runs on wall time, on purpose: it measures
// whether the client process is alive, which has nothing to do with
// simulation time (a virtual clock may stand still for hours). A listener of
// every account also covers the accounts created after it: each renewal
// registers its targets for them. Listeners live
// in memory; targets a listener of an earlier process left behind carry the
// header X-Pixsandbox-Listener and are removed when a listener is next made
// for their account.

// listenerHeader marks the targets of a listener.
const listenerHeader = "X-Pixsandbox-Listener"

const (
	listenerDefaultTTL = 30 * time.Second
	listenerMaxTTL     = time.Hour
)

// listener is one lease.
type listener struct {
	workspace string // the workspace its targets are in ("" the default)
	id        string
	url       string
	secret    string
	all       bool    // every account: a renewal adds those created since
	accounts  []int64 // the accounts it has targets for
	events    []string
	ttl       time.Duration
	targets   []webhook.Target // the targets it made (and removes)
	timer     *time.Timer      // wall time: the lease
	expiresAt time.Time        // wall time
	grow      sync.Mutex       // serializes the additions of accounts (renewals)
	// previousSecretExpiresAt is when the secret its last rotation replaced
	// stops signing (wall time, wire form); "" when never rotated with an overlap.
	previousSecretExpiresAt string
}

// listenerSet holds the live listeners of a Server.
type listenerSet struct {
	mu   sync.Mutex
	byID map[string]*listener
}

type listenerDTO struct {
	ID               string      `json:"id"`
	URL              string      `json:"url"`
	Secret           string      `json:"secret"`
	AccountIDs       []int64     `json:"accountIds"`
	Events           []string    `json:"events"`
	TTLSeconds       int         `json:"ttlSeconds"`
	ExpiresInSeconds float64     `json:"expiresInSeconds"`
	Targets          []targetDTO `json:"targets"`
	// PreviousSecretExpiresAt: see targetDTO (rotation.go).
	PreviousSecretExpiresAt string `json:"previousSecretExpiresAt,omitempty"`
}

func (l *listener) dto() listenerDTO {
	d := listenerDTO{ID: l.id, URL: l.url, Secret: l.secret, AccountIDs: l.accounts, Events: l.events,
		TTLSeconds: int(l.ttl / time.Second), ExpiresInSeconds: time.Until(l.expiresAt).Round(time.Millisecond).Seconds(), Targets: []targetDTO{},
		PreviousSecretExpiresAt: l.previousSecretExpiresAt}
	for _, t := range l.targets {
		d.Targets = append(d.Targets, newTargetDTO(t))
	}
	return d
}

// handleListenerCreate serves POST /_sandbox/listeners.
func (cp *ControlPlane) handleListenerCreate(r *http.Request) (any, error) {
	var req struct {
		AccountID  *int64             `json:"accountId"`
		All        bool               `json:"all"`
		URL        *string            `json:"url"`
		Events     []string           `json:"events"`
		Secret     *string            `json:"secret"`
		TTLSeconds *strictjson.Number `json:"ttlSeconds"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	bad := func(field, msg string) error {
		return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field, Message: msg})
	}
	switch {
	case req.URL == nil || *req.URL == "":
		return nil, bad("url", "is required: the local URL deliveries go to, e.g. http://127.0.0.1:4000/webhooks")
	case req.AccountID == nil && !req.All:
		return nil, bad("accountId", `is required, or send "all": true for every account`)
	case req.AccountID != nil && req.All:
		return nil, bad("accountId", `give accountId or "all": true, not both`)
	case req.AccountID != nil && *req.AccountID <= 0:
		return nil, bad("accountId", "must be a positive account number")
	}
	l := &listener{workspace: pix.WorkspaceOf(r.Context()), url: *req.URL, ttl: listenerDefaultTTL, events: webhook.EventTypes, all: req.All}
	if len(req.Events) > 0 {
		l.events = nil
		for _, e := range req.Events {
			if !slices.Contains(webhook.EventTypes, e) {
				return nil, bad("events", "must list event types among "+strings.Join(webhook.EventTypes, ", "))
			}
			if !slices.Contains(l.events, e) {
				l.events = append(l.events, e)
			}
		}
	}
	if req.TTLSeconds != nil {
		d, err := time.ParseDuration(req.TTLSeconds.String() + "s")
		if err != nil || d < time.Second || d > listenerMaxTTL {
			return nil, bad("ttlSeconds", "must be 1 to 3600 seconds")
		}
		l.ttl = d
	}
	l.secret = webhook.NewSecret()
	if req.Secret != nil && *req.Secret != "" {
		if !webhook.ValidSecret(*req.Secret) {
			return nil, bad("secret", `must be a Standard Webhooks secret: "whsec_" and the base64 of 24 to 64 bytes`)
		}
		l.secret = *req.Secret
	}
	var idb [8]byte
	_, _ = rand.Read(idb[:])
	l.id = "lst_" + hex.EncodeToString(idb[:])
	var accounts []int64
	if req.AccountID != nil {
		accounts = []int64{*req.AccountID}
	} else {
		var err error
		if accounts, err = cp.newListenerAccounts(r.Context(), nil); err != nil {
			return nil, err
		}
	}
	ls := cp.listeners
	if err := cp.addListenerAccounts(r.Context(), l, ls, accounts); err != nil {
		cp.dropListenerTargets(l)
		return nil, err
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.byID[l.id] = l
	l.expiresAt = time.Now().Add(l.ttl) // wall time: the lease (see above)
	l.timer = time.AfterFunc(l.ttl, func() { cp.expireListener(l.id) })
	return l.dto(), nil
}

// newListenerAccounts lists the accounts not in have.
func (cp *ControlPlane) newListenerAccounts(ctx context.Context, have []int64) ([]int64, error) {
	all, err := cp.sb(ctx).Accounts(ctx)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, a := range all {
		if id := int64(a.Account.ID); !slices.Contains(have, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// addListenerAccounts registers a listener's targets for accounts. The
// targets made before an error stay on the listener (its end removes them).
func (cp *ControlPlane) addListenerAccounts(ctx context.Context, l *listener, ls *listenerSet, accounts []int64) error {
	for _, acct := range accounts {
		if err := cp.sweepListenerTargets(ctx, acct, ls); err != nil {
			return err
		}
		var made []webhook.Target
		for _, ev := range l.events {
			t := webhook.Target{AccountID: acct, URL: l.url, EventType: ev, Active: true, Secret: l.secret,
				Headers: []webhook.Header{{Key: listenerHeader, Value: l.id}}}
			out, created, err := cp.sb(ctx).RegisterWebhookTarget(ctx, t, false)
			if err != nil {
				ls.mu.Lock()
				l.targets = append(l.targets, made...)
				ls.mu.Unlock()
				return err
			}
			if created {
				made = append(made, out)
			}
		}
		ls.mu.Lock()
		l.targets = append(l.targets, made...)
		l.accounts = append(l.accounts, acct)
		ls.mu.Unlock()
	}
	return nil
}

// sweepListenerTargets removes an account's targets that carry the listener
// header of a listener this process does not hold (one of an earlier process).
func (cp *ControlPlane) sweepListenerTargets(ctx context.Context, acct int64, ls *listenerSet) error {
	ts, err := cp.sb(ctx).WebhookTargets(ctx, pix.AccountID(acct))
	if err != nil {
		return err
	}
	for _, t := range ts {
		for _, h := range t.Headers {
			if h.Key != listenerHeader {
				continue
			}
			ls.mu.Lock()
			_, live := ls.byID[h.Value]
			ls.mu.Unlock()
			if !live {
				if err := cp.sb(ctx).DeleteWebhookTarget(ctx, t.ID); err != nil && !isNotFound(err) {
					return err
				}
			}
		}
	}
	return nil
}

// dropListenerTargets removes the targets a listener made; those already gone
// (a reset) are skipped.
func (cp *ControlPlane) dropListenerTargets(l *listener) int {
	// The request that ends a listener may be gone (a lease that ran out):
	// the removal has its own short deadline (wall time: I/O).
	ctx, cancel := context.WithTimeout(pix.WithWorkspace(context.Background(), l.workspace), 30*time.Second)
	defer cancel()
	ls := cp.listeners
	ls.mu.Lock()
	targets := slices.Clone(l.targets)
	ls.mu.Unlock()
	n := 0
	for _, t := range targets {
		if err := cp.sb(ctx).DeleteWebhookTarget(ctx, t.ID); err == nil {
			n++
		} else if !isNotFound(err) {
			cp.log.Warn("listener: could not remove a webhook target", "listener", l.id, "target", t.ID, "error", err)
		}
	}
	return n
}

// expireListener ends a listener whose lease ran out.
func (cp *ControlPlane) expireListener(id string) {
	ls := cp.listeners
	ls.mu.Lock()
	l, ok := ls.byID[id]
	if ok && time.Now().Before(l.expiresAt) { // wall time: renewed meanwhile
		ls.mu.Unlock()
		return
	}
	delete(ls.byID, id)
	ls.mu.Unlock()
	if ok {
		defer cp.srv.HoldShared()()
		n := cp.dropListenerTargets(l)
		cp.log.Info("listener expired: its client stopped renewing it", "listener", id, "targets_removed", n)
	}
}

func (cp *ControlPlane) listenerByPath(r *http.Request) (*listener, error) {
	id := mux.Vars(r)["id"]
	ls := cp.listeners
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l, ok := ls.byID[id]
	if !ok || l.workspace != pix.WorkspaceOf(r.Context()) {
		return nil, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "listener %s not found: it was deleted, or its lease ran out and its targets were removed", pix.Clip(id, 60))
	}
	return l, nil
}

// handleListenerRenew serves POST /_sandbox/listeners/{id}/renew: the
// lease runs for its ttl again, and a listener of every account gets targets
// for the accounts created since it was made or last renewed.
func (cp *ControlPlane) handleListenerRenew(r *http.Request) (any, error) {
	l, err := cp.listenerByPath(r)
	if err != nil {
		return nil, err
	}
	ls := cp.listeners
	ls.mu.Lock()
	l.expiresAt = time.Now().Add(l.ttl) // wall time: the lease
	l.timer.Reset(l.ttl)
	ls.mu.Unlock()
	if l.all {
		if err := cp.growListener(r.Context(), l, ls); err != nil {
			return nil, err
		}
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return l.dto(), nil
}

// growListener adds the accounts created since to a listener of every
// account, unless the listener ended meanwhile.
func (cp *ControlPlane) growListener(ctx context.Context, l *listener, ls *listenerSet) error {
	l.grow.Lock()
	defer l.grow.Unlock()
	ls.mu.Lock()
	accounts := slices.Clone(l.accounts)
	ls.mu.Unlock()
	fresh, err := cp.newListenerAccounts(ctx, accounts)
	if err != nil || len(fresh) == 0 {
		return err
	}
	if err := cp.addListenerAccounts(ctx, l, ls, fresh); err != nil {
		return err
	}
	ls.mu.Lock()
	_, live := ls.byID[l.id]
	ls.mu.Unlock()
	if !live {
		// Ended (deleted or expired) while the targets were made: remove them too.
		cp.dropListenerTargets(l)
	}
	return nil
}

// handleListenerDelete serves DELETE /_sandbox/listeners/{id}.
func (cp *ControlPlane) handleListenerDelete(r *http.Request) (any, error) {
	l, err := cp.listenerByPath(r)
	if err != nil {
		return nil, err
	}
	ls := cp.listeners
	ls.mu.Lock()
	delete(ls.byID, l.id)
	l.timer.Stop()
	ls.mu.Unlock()
	return map[string]any{"id": l.id, "targetsRemoved": cp.dropListenerTargets(l)}, nil
}

// handleListenerList serves GET /_sandbox/listeners.
func (cp *ControlPlane) handleListenerList(r *http.Request) (any, error) {
	ls := cp.listeners
	ls.mu.Lock()
	defer ls.mu.Unlock()
	out := []listenerDTO{}
	for _, l := range ls.byID {
		if l.workspace == pix.WorkspaceOf(r.Context()) {
			out = append(out, l.dto())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return map[string]any{"data": out}, nil
}

func isNotFound(err error) bool {
	var pe *pix.Error
	return errors.As(err, &pe) && pe.Kind == pix.KindNotFound
}
