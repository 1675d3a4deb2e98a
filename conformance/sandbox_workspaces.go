package conformance

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

var _ = ginkgo.Describe("Sandbox workspaces", framework.Res("sandbox-workspaces"), framework.Sandbox, func() {
	f := framework.New("sandbox-workspaces")

	// created is a workspace a check made, with its first account's token.
	type created struct {
		id, token string
	}

	// inWorkspace returns headers that act on workspace id (replacing the
	// run's own workspace, when it has one).
	inWorkspace := func(id string) http.Header { return http.Header{apiclient.HeaderWorkspace: {id}} }

	// create makes a workspace with one account and takes a token for it
	// with its own credentials; it is deleted at the end of the check.
	create := func(ctx context.Context) created {
		ginkgo.GinkgoHelper()
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/workspaces", map[string]any{"name": "conformance check", "accounts": 1, "seed": 7})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		if r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed {
			ginkgo.Skip("the target's control plane offers no workspaces (POST /_sandbox/workspaces answered " + fmt.Sprint(r.Status) + ")")
		}
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		id := stringField(r, "id")
		ginkgo.DeferCleanup(func(ctx context.Context) {
			_, _ = f.Sandbox.Do(ctx, http.MethodDelete, "/_sandbox/workspaces/"+id, nil)
		})
		gomega.Expect(r).To(framework.HaveJSONField("adminToken", gomega.Not(gomega.BeEmpty())))
		gomega.Expect(r).To(framework.HaveJSONField("accounts", gomega.HaveLen(1)))
		cert := apiclient.EncodeCertHeader(stringField(r, "accounts[0].certificate"))
		tr := f.Do(ctx, http.MethodPost, "/api/auth/token", "",
			apiclient.TokenBody(stringField(r, "accounts[0].clientId"), stringField(r, "accounts[0].clientSecret")),
			http.Header{apiclient.HeaderCert: {cert}, apiclient.HeaderWorkspace: {id}})
		gomega.Expect(tr).To(framework.HaveStatus(http.StatusCreated), "a token with the workspace account's own credentials")
		return created{id: id, token: stringField(tr, "access_token")}
	}

	/*
		Check: sandbox/workspace-isolated
		Sandbox: POST /_sandbox/workspaces, PUT /cob/{txid}, GET /cob/{txid}
		Description: A workspace's account MUST get a token with its own credentials; that token
		MUST get 404 on a charge of an account of another workspace, as on another account's
		charge, and 403 when X-Sandbox-Workspace names another workspace.
	*/
	framework.SandboxIt("keeps a workspace's accounts apart from every other world", func(ctx ginkgo.SpecContext) {
		w := create(ctx)
		txid := "workspaceisolation" + f.UniqueID("")[:12]
		put := f.Do(ctx, http.MethodPut, "/cob/"+txid, f.Token(ctx), []byte(`{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`), nil)
		gomega.Expect(put).To(framework.HaveStatus(http.StatusCreated))
		gomega.Expect(f.Do(ctx, http.MethodGet, "/cob/"+txid, w.token, nil, inWorkspace(w.id))).To(framework.HaveStatus(http.StatusNotFound))
		gomega.Expect(f.Do(ctx, http.MethodGet, "/api/balance", w.token, nil, inWorkspace(w.id))).To(framework.HaveStatus(http.StatusOK))
		other := create(ctx)
		gomega.Expect(f.Do(ctx, http.MethodGet, "/api/balance", w.token, nil, inWorkspace(other.id))).To(framework.HaveStatus(http.StatusForbidden))
	})

	/*
		Check: sandbox/workspace-own-clock
		Sandbox: POST /_sandbox/workspaces/{id}/clock/advance
		Description: Advancing a workspace's clock by 90 days MUST leave the clock of every other
		workspace where it was, and the workspace's tokens then expire while another's stay valid.
	*/
	framework.SandboxIt("moves a workspace's clock alone", func(ctx ginkgo.SpecContext) {
		a, b := create(ctx), create(ctx)
		clockOf := func(id string) time.Time {
			r, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/workspaces/"+id+"/clock", nil)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
			t, err := time.Parse(time.RFC3339Nano, stringField(r, "now"))
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			return t
		}
		before := clockOf(b.id)
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/workspaces/"+a.id+"/clock/advance", map[string]any{"seconds": 90 * 24 * 3600})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(clockOf(b.id)).To(gomega.BeTemporally("~", before, f.Config.SettleTimeout))
		gomega.Expect(f.Do(ctx, http.MethodGet, "/api/balance", b.token, nil, inWorkspace(b.id))).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(f.Do(ctx, http.MethodGet, "/api/balance", a.token, nil, inWorkspace(a.id))).To(framework.HaveStatus(http.StatusUnauthorized))
	})

	/*
		Check: sandbox/workspace-delete
		Sandbox: DELETE /_sandbox/workspaces/{id}
		Description: A deleted workspace's routes MUST answer 404 and its tokens 401; a malformed
		workspace id MUST be a 400 and an unknown one a 404.
	*/
	framework.SandboxIt("deletes a workspace and refuses unknown and malformed ids", func(ctx ginkgo.SpecContext) {
		w := create(ctx)
		r, err := f.Sandbox.Do(ctx, http.MethodDelete, "/_sandbox/workspaces/"+w.id, nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		r, err = f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/workspaces/"+w.id+"/clock", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusNotFound))
		gomega.Expect(f.Do(ctx, http.MethodGet, "/api/balance", w.token, nil, http.Header{apiclient.HeaderWorkspace: nil})).To(framework.HaveStatus(http.StatusUnauthorized))
		r, err = f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/workspaces/not-a-workspace/clock", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
		r, err = f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/workspaces/00000000-0000-4000-8000-000000000000/clock", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusNotFound))
	})
})
