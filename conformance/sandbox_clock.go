package conformance

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

var _ = ginkgo.Describe("Sandbox clock", framework.Res("sandbox-clock"), framework.Sandbox, ginkgo.Serial, func() {
	f := framework.New("sandbox-clock", framework.WithoutIdentity())

	// clock reads the simulation clock.
	clock := func(ctx context.Context) sandbox.ClockState {
		ginkgo.GinkgoHelper()
		c, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return c
	}

	// expectMovedBy checks that the clock moved from before to after by d:
	// exactly on a virtual clock; on a real clock, by d plus the wall time that
	// passed (bounded by the settle timeout), give or take a second for
	// timestamps rendered with less than nanosecond precision.
	expectMovedBy := func(before, after sandbox.ClockState, d time.Duration) {
		ginkgo.GinkgoHelper()
		moved := after.Now.Sub(before.Now)
		if before.Virtual() {
			gomega.Expect(moved).To(gomega.Equal(d), "a virtual clock moves only by what it is advanced")
			return
		}
		gomega.Expect(moved).To(gomega.BeNumerically(">", d-time.Second), "a real clock moves by at least what it is advanced")
		gomega.Expect(moved).To(gomega.BeNumerically("<", d+f.Config.SettleTimeout), "a real clock moves by what it is advanced plus the wall time of the exchange")
	}

	/*
		Check: sandbox/clock-read
		Sandbox: GET /_sandbox/clock
		Description: GET /_sandbox/clock MUST answer 200 with now as an RFC 3339 UTC time and mode
		"real" or "virtual".
	*/
	framework.SandboxIt("reports now in UTC and the clock mode", func(ctx ginkgo.SpecContext) {
		r, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/clock", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		now := stringField(r, "now")
		_, err = time.Parse(time.RFC3339Nano, now)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "now")
		gomega.Expect(strings.HasSuffix(now, "Z")).To(gomega.BeTrue(), "now %q is not UTC", now)
		gomega.Expect(r).To(framework.HaveJSONField("mode", gomega.BeElementOf("real", "virtual")))
	})

	/*
		Check: sandbox/clock-advance-seconds
		Sandbox: POST /_sandbox/clock/advance {"seconds":N}
		Description: Advancing by {"seconds":90} MUST answer 200 with now moved forward by 90 seconds
		(plus elapsed wall time on a real clock), and GET /_sandbox/clock MUST then agree.
	*/
	framework.SandboxIt("advances by a number of seconds", func(ctx ginkgo.SpecContext) {
		before := clock(ctx)
		after, err := f.Sandbox.Advance(ctx, 90)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectMovedBy(before, after, 90*time.Second)
		gomega.Expect(after.Mode).To(gomega.Equal(before.Mode))
		expectMovedBy(after, clock(ctx), 0)
	})

	/*
		Check: sandbox/clock-advance-duration
		Sandbox: POST /_sandbox/clock/advance {"duration":"30m"}
		Description: Advancing by {"duration":"30m"} MUST answer 200 with now moved forward by 30
		minutes (plus elapsed wall time on a real clock).
	*/
	framework.SandboxIt("advances by a duration", func(ctx ginkgo.SpecContext) {
		before := clock(ctx)
		after, err := f.Sandbox.AdvanceDuration(ctx, "30m")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectMovedBy(before, after, 30*time.Minute)
	})

	/*
		Check: sandbox/clock-set-forward
		Sandbox: POST /_sandbox/clock {"now":RFC3339}
		Description: Setting the clock one hour ahead MUST answer 200 with now at that instant (or,
		on a real clock, just after it).
	*/
	framework.SandboxIt("sets the clock forward", func(ctx ginkgo.SpecContext) {
		before := clock(ctx)
		target := before.Now.Add(time.Hour).Truncate(time.Second)
		after, err := f.Sandbox.SetClock(ctx, target)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectMovedBy(sandbox.ClockState{Now: target, Mode: before.Mode}, after, 0)
	})

	/*
		Check: sandbox/clock-no-backwards
		Sandbox: POST /_sandbox/clock {"now":RFC3339}
		Description: Setting the clock to an instant in its past MUST answer 400 in the minimal error
		shape and leave the clock where it was.
	*/
	framework.SandboxIt("refuses to move backwards", func(ctx ginkgo.SpecContext) {
		before := clock(ctx)
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/clock",
			map[string]string{"now": before.Now.Add(-time.Hour).UTC().Format(time.RFC3339)})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
		gomega.Expect(r).To(framework.HaveMinimalErrorShape())
		gomega.Expect(clock(ctx).Now).NotTo(gomega.BeTemporally("<", before.Now), "the clock moved backwards")
	})

	/*
		Check: sandbox/clock-limit
		Sandbox: POST /_sandbox/clock {"now":RFC3339}
		Description: Setting the clock past 9000-01-01T00:00:00Z, the latest simulation time, MUST
		answer 400 in the minimal error shape naming "now", and leave the clock where it was.
		(Advancing past it is refused the same way; checking that would need the clock moved
		near the limit first, which no later spec could undo.)
	*/
	framework.SandboxIt("refuses to move past the latest simulation time", func(ctx ginkgo.SpecContext) {
		before := clock(ctx)
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/clock", map[string]string{"now": "9000-01-01T00:00:01Z"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
		gomega.Expect(r).To(framework.HaveMinimalErrorShape())
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.HavePrefix("now")))
		gomega.Expect(clock(ctx).Now).To(gomega.BeTemporally("<", before.Now.Add(time.Hour)), "the clock jumped")
	})

	/*
		Check: sandbox/clock-runs-due-jobs
		Sandbox: POST /_sandbox/jobs {"kind":"marker","seconds":10}; GET /_sandbox/jobs/{id}; POST /_sandbox/clock/advance
		Description: A marker job scheduled 10 seconds ahead MUST be created 201 with status
		"scheduled" and due 10 seconds after now; it MUST still be "scheduled" after advancing 9
		seconds, and MUST be "done" as soon as an advance of 1 more second has answered.
	*/
	framework.SandboxIt("runs a job when an advance reaches its due time", func(ctx ginkgo.SpecContext) {
		before := clock(ctx)
		job, err := f.Sandbox.ScheduleJob(ctx, sandbox.JobOptions{Kind: "marker", Seconds: 10, Note: f.UniqueID("conformance-")})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(job.Status).To(gomega.Equal("scheduled"))
		gomega.Expect(job.Kind).To(gomega.Equal("marker"))
		expectMovedBy(before, sandbox.ClockState{Now: job.Due}, 10*time.Second)

		_, err = f.Sandbox.Advance(ctx, 9)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		j, err := f.Sandbox.Job(ctx, job.ID.String())
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(j.Status).To(gomega.Equal("scheduled"), "9 s later")

		_, err = f.Sandbox.Advance(ctx, 1)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		j, err = f.Sandbox.Job(ctx, job.ID.String())
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(j.Status).To(gomega.Equal("done"), "10 s later")
		if j.RanAt != nil {
			gomega.Expect(*j.RanAt).NotTo(gomega.BeTemporally("<", job.Due), "ranAt before due")
		}
	})
})
