package conformance

import (
	"encoding/json"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

var _ = ginkgo.Describe("Sandbox engine", framework.Res("sandbox-clock"), framework.Sandbox, ginkgo.Serial, func() {
	f := framework.New("sandbox-engine", framework.WithoutIdentity())

	/*
		Check: sandbox/clock-wait
		Sandbox: POST /_sandbox/clock/advance {"seconds":N,"wait":W}
		Description: A clock move MUST accept "wait" "jobs" (the default) and "webhooks" and answer
		200 with webhooksPending, the webhook attempts still under way, a whole number (0 after
		"webhooks" once nothing else fell due); any other "wait" MUST answer 400 in the minimal
		error shape naming "wait", and leave the clock where it was.
		Gap G-61: what a clock move waits for is the sandbox's choice (docs/spec-gaps.md).
	*/
	framework.SandboxIt("waits for jobs by default, for webhook attempts when asked, and refuses any other wait", func(ctx ginkgo.SpecContext) {
		for _, wait := range []string{"jobs", "webhooks"} {
			r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/clock/advance", map[string]any{"seconds": 0, "wait": wait})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(r).To(framework.HaveStatus(http.StatusOK), "wait %q", wait)
			gomega.Expect(intField(r, "jobsRun")).To(gomega.BeNumerically(">=", 0))
			gomega.Expect(intField(r, "webhooksPending")).To(gomega.BeNumerically(">=", 0))
		}
		before, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/clock/advance", map[string]any{"seconds": 3600, "wait": "forever"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
		gomega.Expect(r).To(framework.HaveMinimalErrorShape())
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.HavePrefix("wait")))
		after, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(after.Now.Sub(before.Now)).To(gomega.BeNumerically("<", f.Config.SettleTimeout), "a refused move moved the clock")
	})

	/*
		Check: sandbox/jobs-backlog
		Sandbox: GET /_sandbox/jobs
		Description: GET /_sandbox/jobs MUST answer 200 with backlog: due (jobs due and not yet run),
		lagSeconds (how far behind the clock the oldest of them is), webhooksPending, all
		non-negative, and oldestDue null exactly when due is 0. A job scheduled ahead of the clock
		MUST be listed but not counted as due.
	*/
	framework.SandboxIt("reports how far the job runner is behind the clock", func(ctx ginkgo.SpecContext) {
		_, err := f.Sandbox.ScheduleJob(ctx, sandbox.JobOptions{Kind: "marker", Seconds: 3600, Note: "backlog check"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		r, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/jobs", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(r).To(framework.HaveJSONField("data", gomega.ContainElement(gomega.HaveKeyWithValue("note", "backlog check"))))
		for _, field := range []string{"backlog.due", "backlog.webhooksPending"} {
			gomega.Expect(intField(r, field)).To(gomega.BeNumerically(">=", 0), field)
		}
		gomega.Expect(r).To(framework.HaveJSONField("backlog.lagSeconds", gomega.WithTransform(func(n json.Number) (float64, error) { return n.Float64() }, gomega.BeNumerically(">=", 0))))
		if intField(r, "backlog.due") == 0 {
			gomega.Expect(r).To(framework.HaveJSONField("backlog.oldestDue", gomega.BeNil()))
		} else {
			gomega.Expect(r).To(framework.HaveJSONField("backlog.oldestDue", gomega.BeAssignableToTypeOf("")))
		}
	})
})
