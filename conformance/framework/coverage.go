package framework

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// Kinds of coverage items: what the specification's tables list.
const (
	KindRoute      = "route"
	KindErrorCode  = "error code"
	KindTransition = "state transition"
)

// CoverageItem is one thing the specification lists that a conformance run
// should check: a route, an error code of its error tables or a transition of
// its state tables. The checks that check it are the specs whose full text
// (container texts and the spec's own) matches Checks; an item no check
// covers carries the Reason instead.
type CoverageItem struct {
	Kind    string
	Name    string
	Section string // the specification's section that lists it
	Checks  Matcher
	Reason  string
}

// Coverage statuses of an item after a run.
const (
	StatusChecked = "checked" // a matching check passed
	StatusFailed  = "failed"  // a matching check failed
	// StatusControlRefused: no matching check failed, and one ended control
	// refused (the target refused its control, a valid request).
	StatusControlRefused = "control refused"
	StatusSkipped        = "skipped"     // every matching check was skipped (or filtered out) in this run
	StatusNotChecked     = "not checked" // no check covers it; see the reason
	StatusAbsent         = "absent"      // no matching check ran: the target lacks the route
	StatusNotRun         = "not run"     // the run could not start; see the reason
)

// ItemCoverage is an item's outcome in a run.
type ItemCoverage struct {
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Section string   `json:"section"`
	Status  string   `json:"status"`
	Checks  []string `json:"checks"`           // the matching checks that ran (passed, failed or control refused)
	Failed  []string `json:"failed,omitempty"` // those that failed
	// ControlRefused are the matching checks that ended control refused.
	ControlRefused []string `json:"controlRefused,omitempty"`
	Reason         string   `json:"reason,omitempty"` // why it is not checked or was skipped
}

// CoverageReport is the coverage of one run (or of the suite's spec tree,
// without running it).
type CoverageReport struct {
	Target string         `json:"target,omitempty"`
	Items  []ItemCoverage `json:"items"`
}

var coverageItems []CoverageItem

// RegisterCoverage adds the items a run reports on; package conformance
// registers the specification's tables.
func RegisterCoverage(items ...CoverageItem) { coverageItems = append(coverageItems, items...) }

// CoverageItems returns the registered items.
func CoverageItems() []CoverageItem { return slices.Clone(coverageItems) }

// BuildCoverage reports every registered item against the spec reports of a
// run. A spec report of state Pending or Skipped counts as skipped, with the
// skip message as the reason, unless the skip says its route is absent or its
// control was refused; a spec that ran and passed checks the item.
func BuildCoverage(reports []types.SpecReport, target string) CoverageReport {
	rep := CoverageReport{Target: target}
	for _, it := range coverageItems {
		t := itemTally{ic: ItemCoverage{Kind: it.Kind, Name: it.Name, Section: it.Section, Reason: it.Reason}}
		if it.Checks != nil {
			for _, s := range reports {
				if s.LeafNodeType.Is(types.NodeTypeIt) && it.Checks.MatchString(s.FullText()) {
					t.add(s)
				}
			}
		}
		rep.Items = append(rep.Items, t.judge())
	}
	return rep
}

// itemTally gathers the outcomes of an item's checks in a run.
type itemTally struct {
	ic                                       ItemCoverage
	matched, skipReasons, skipLabels, absent []string
}

// add records the outcome of one of the item's checks.
func (t *itemTally) add(s types.SpecReport) {
	ic := &t.ic
	t.matched = append(t.matched, s.FullText())
	switch {
	case s.State.Is(types.SpecStatePassed):
		ic.Checks = append(ic.Checks, s.FullText())
	case s.State.Is(types.SpecStateFailureStates):
		ic.Checks = append(ic.Checks, s.FullText())
		ic.Failed = append(ic.Failed, s.FullText())
	case strings.HasPrefix(s.Failure.Message, ControlRefusedPrefix):
		ic.Checks = append(ic.Checks, s.FullText())
		ic.ControlRefused = append(ic.ControlRefused, s.FullText())
	case strings.HasPrefix(s.Failure.Message, SkipRouteAbsent):
		// The route alone: the probe's evidence is in the run's summary.
		route, _, _ := strings.Cut(strings.TrimPrefix(s.Failure.Message, SkipRouteAbsent), ": ")
		if !slices.Contains(t.absent, route) {
			t.absent = append(t.absent, route)
		}
	default:
		if msg := strings.TrimSpace(s.Failure.Message); msg != "" && !slices.Contains(t.skipReasons, msg) {
			t.skipReasons = append(t.skipReasons, msg)
		}
		for _, l := range s.Labels() {
			if (l == LabelSandbox || l == LabelSandboxChoice || l == LabelSlow || l == LabelWebhook) && !slices.Contains(t.skipLabels, l) {
				t.skipLabels = append(t.skipLabels, l)
			}
		}
	}
}

// judge returns the item's coverage: a failed check wins, then a refused
// control, then a passed check; else absent, skipped or not checked.
func (t *itemTally) judge() ItemCoverage {
	ic := t.ic
	slices.Sort(ic.Checks)
	slices.Sort(ic.Failed)
	slices.Sort(ic.ControlRefused)
	switch {
	case len(ic.Failed) > 0:
		ic.Status = StatusFailed
	case len(ic.ControlRefused) > 0:
		ic.Status = StatusControlRefused
	case len(ic.Checks) > 0:
		ic.Status = StatusChecked
	case len(t.absent) > 0:
		ic.Status = StatusAbsent
		slices.Sort(t.absent)
		ic.Reason = SkipRouteAbsent + strings.Join(t.absent, "; ")
	case len(t.matched) > 0:
		ic.Status = StatusSkipped
		ic.Reason = "its checks were skipped or filtered out"
		if len(t.skipLabels) > 0 {
			slices.Sort(t.skipLabels)
			ic.Reason += "; they are labelled " + strings.Join(t.skipLabels, ", ")
		}
		if len(t.skipReasons) > 0 {
			ic.Reason += ": " + strings.Join(t.skipReasons, "; ")
		}
	default:
		ic.Status = StatusNotChecked
		if ic.Reason == "" {
			ic.Reason = "no check covers it"
		}
	}
	return ic
}

// notRun marks every item not run, for the given reason: the run could not
// start, so nothing was checked and nothing was found absent.
func (r *CoverageReport) notRun(reason string) {
	for i := range r.Items {
		r.Items[i].Status, r.Items[i].Reason = StatusNotRun, reason
		r.Items[i].Checks, r.Items[i].Failed, r.Items[i].ControlRefused = nil, nil, nil
	}
}

// Counts returns, per kind in report order, how many items have each status.
func (r CoverageReport) Counts() (kinds []string, counts map[string]map[string]int) {
	counts = map[string]map[string]int{}
	for _, it := range r.Items {
		if counts[it.Kind] == nil {
			kinds = append(kinds, it.Kind)
			counts[it.Kind] = map[string]int{}
		}
		counts[it.Kind][it.Status]++
	}
	return kinds, counts
}

// Summary is the report in a few lines: per kind the items checked, and every
// item that is not checked with its status and reason.
func (r CoverageReport) Summary() string {
	var b strings.Builder
	kinds, counts := r.Counts()
	b.WriteString("Coverage of the specification's tables")
	if r.Target != "" {
		fmt.Fprintf(&b, " (target %s)", r.Target)
	}
	b.WriteString(":\n")
	for _, k := range kinds {
		c := counts[k]
		total := 0
		for _, n := range c {
			total += n
		}
		fmt.Fprintf(&b, "  %-17s %d/%d checked", k+"s", c[StatusChecked], total)
		for _, st := range []string{StatusFailed, StatusControlRefused, StatusAbsent, StatusSkipped, StatusNotChecked, StatusNotRun} {
			if c[st] > 0 {
				fmt.Fprintf(&b, ", %d %s", c[st], st)
			}
		}
		b.WriteString("\n")
	}
	notRun := ""
	for _, it := range r.Items {
		if it.Status == StatusChecked {
			continue
		}
		if it.Status == StatusNotRun { // one reason for the whole run: said once below
			notRun = it.Reason
			continue
		}
		fmt.Fprintf(&b, "  - %s %s: %s", it.Kind, it.Name, it.Status)
		switch {
		case len(it.Failed) > 0:
			fmt.Fprintf(&b, " (%s)", strings.Join(it.Failed, "; "))
		case len(it.ControlRefused) > 0:
			fmt.Fprintf(&b, " (%s)", strings.Join(it.ControlRefused, "; "))
		case it.Reason != "":
			fmt.Fprintf(&b, " (%s)", it.Reason)
		}
		b.WriteString("\n")
	}
	if notRun != "" {
		fmt.Fprintf(&b, "  nothing was checked: %s\n", notRun)
	}
	return b.String()
}

// WriteMarkdown writes the report as Markdown: the summary counts, then one
// table per kind with every item, its status and its checks or reason.
func (r CoverageReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Conformance coverage\n\n")
	if r.Target != "" {
		fmt.Fprintf(&b, "Target: %s\n\n", r.Target)
	}
	kinds, counts := r.Counts()
	// The columns control refused, absent and not run are shown when an
	// item has that status.
	var columns []string
	for _, st := range []string{StatusChecked, StatusFailed, StatusControlRefused, StatusAbsent, StatusSkipped, StatusNotChecked, StatusNotRun} {
		shown := true
		if st == StatusControlRefused || st == StatusAbsent || st == StatusNotRun {
			shown = slices.ContainsFunc(kinds, func(k string) bool { return counts[k][st] > 0 })
		}
		if shown {
			columns = append(columns, st)
		}
	}
	b.WriteString("| kind | " + strings.Join(columns, " | ") + " |\n|---|" + strings.Repeat("---:|", len(columns)) + "\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "| %ss |", k)
		for _, st := range columns {
			fmt.Fprintf(&b, " %d |", counts[k][st])
		}
		b.WriteString("\n")
	}
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n## %ss\n\n| %s | section | status | checks, or why not |\n|---|---|---|---|\n", upperFirst(k), k)
		for _, it := range r.Items {
			if it.Kind != k {
				continue
			}
			why := it.Reason
			if n := len(it.Checks); n > 0 {
				shown := it.Checks[:min(n, mdChecksShown)]
				why = fmt.Sprintf("%d: %s", n, strings.Join(shown, "<br>"))
				if n > len(shown) {
					why += fmt.Sprintf("<br>… and %d more", n-len(shown))
				}
			}
			switch {
			case len(it.Failed) > 0:
				why = "FAILED: " + strings.Join(it.Failed, "<br>")
			case len(it.ControlRefused) > 0:
				why = "CONTROL REFUSED: " + strings.Join(it.ControlRefused, "<br>")
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(it.Name), mdCell(it.Section), it.Status, mdCell(why))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFiles writes prefix.json and prefix.md.
func (r CoverageReport) WriteFiles(prefix string) error {
	j, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(prefix+".json", append(j, '\n'), 0o644); err != nil {
		return err
	}
	f, err := os.Create(prefix + ".md")
	if err != nil {
		return err
	}
	if err := r.WriteMarkdown(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mdChecksShown is how many checks of an item the Markdown lists (the JSON
// lists them all).
const mdChecksShown = 4

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// reportCoverage is the suite's ReportAfterSuite: it keeps the run's report,
// writes the JUnit and JSON reports, prints the coverage summary and, with
// Config.CoverageReport, writes the coverage's JSON and Markdown files.
func reportCoverage(r ginkgo.Report) {
	state.report = &r
	res := state.result()
	writeReports(state.fullReport(), state.config, res)
	// Ginkgo ends its output with SUCCESS! whenever no spec failed; a run
	// that fails for another reason (no check ran, routes absent, controls
	// refused: skips to Ginkgo) fails this node too, so that line says
	// FAIL! as the run's own summary and exit code do.
	defer func() {
		if problems := res.problems(state.config); r.SuiteSucceeded && len(problems) > 0 && res.SetupFailure == "" {
			ginkgo.Fail("the run fails: " + strings.Join(problems, "; "))
		}
	}()
	if len(coverageItems) == 0 {
		return
	}
	fmt.Fprint(os.Stdout, "\n"+res.Coverage.Summary())
	if p := state.config.CoverageReport; p != "" {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "conformance: writing the coverage report: %v\n", err)
			return
		}
		if err := res.Coverage.WriteFiles(p); err != nil {
			fmt.Fprintf(os.Stderr, "conformance: writing the coverage report: %v\n", err)
		}
	}
}
