package judging

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// A judging process holds the proxy's Judges (the proxy's
// Options.JudgeProcess): the proxy forwards, captures and hands each
// exchange over a pipe, in the order it judges them; the process judges and
// hands back the findings.
// In one process, the requests waited out the collector's marks of the
// state model and the judging goroutine's bursts, which share Go's
// processors with them (docs/performance-log.md, "The judging in a process
// of its own"); a process of its own, at a lower priority, leaves the
// operating system to give a request that becomes ready its CPU at once.
//
// Both directions carry frames: a uvarint length and that many bytes. To
// the process: a Config in JSON, then one item a frame (appendItem).
// Back: one frame an item, in order (appendResult), and frames of the
// model's sizes alone between them.

const (
	// MaxFrame bounds a frame: two bodies of the proxy's BodyLimit (1 MiB),
	// headers and the rest. Send refuses an item larger than that.
	MaxFrame = 4 << 20
	// handOverDelay is how long items handed over may wait in the proxy's
	// buffer for others to go with them in one write: a write and a read
	// on each side for every exchange were a tenth of the forwarding
	// process's CPU at 1,000 exchanges a second (docs/performance-log.md).
	handOverDelay = 5 * time.Millisecond
	// sizesEvery paces the judging process's reports of its model's sizes
	// (the summary's "model"); its last report comes when its input ends.
	sizesEvery = 100 * time.Millisecond
)

// The first byte of an answer frame.
const (
	answerFindings      = iota // an item's findings
	answerFindingsSizes        // an item's findings, then the sizes
	answerSizes                // the sizes alone: no item's answer
)

var errFrame = errors.New("judging frame: malformed")

func appendFrame(dst, payload []byte) []byte {
	return append(appendUvarint(dst, uint64(len(payload))), payload...)
}

// readFrame reads one frame into buf (grown as needed) and returns it.
func readFrame(r *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := readUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > MaxFrame {
		return nil, fmt.Errorf("%w: a frame of %d bytes", errFrame, n)
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// Serve is a judging process: it reads the Config and the items
// from in and writes each item's findings to out, until in ends.
func Serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	frame, err := readFrame(r, nil)
	if err != nil {
		return fmt.Errorf("judging: the configuration: %w", err)
	}
	var cfg Config
	if err := json.Unmarshal(frame, &cfg); err != nil {
		return fmt.Errorf("judging: the configuration: %w", err)
	}
	j := New(cfg)
	var buf, res []byte
	var sizesSent time.Time
	for {
		frame, err := readFrame(r, buf)
		if err == io.EOF {
			if res, err = appendResult(nil, answerSizes, nil, j); err != nil {
				return fmt.Errorf("judging: %w", err)
			}
			if _, err := w.Write(appendFrame(nil, res)); err != nil {
				return err
			}
			return w.Flush()
		}
		if err != nil {
			return fmt.Errorf("judging: %w", err)
		}
		buf = frame[:0]
		it, err := decodeItem(frame)
		if err != nil {
			return fmt.Errorf("judging: %w", err)
		}
		found := j.Judge(it)
		idle, kind := r.Buffered() == 0, byte(answerFindings)
		if idle && time.Since(sizesSent) >= sizesEvery { // wall clock: paces a report
			kind, sizesSent = answerFindingsSizes, time.Now()
		}
		if res, err = appendResult(res[:0], kind, found, j); err != nil {
			return fmt.Errorf("judging: %w", err)
		}
		if _, err := w.Write(appendFrame(nil, res)); err != nil {
			return err
		}
		if idle {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}

// appendResult encodes an answer of the kind given: the findings (none for
// answerSizes) and, but for answerFindings, the judges' model sizes.
func appendResult(dst []byte, kind byte, found []contract.Finding, j *Judges) ([]byte, error) {
	dst = appendUvarint(append(dst, kind), uint64(len(found)))
	for _, f := range found {
		b, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		dst = appendBytes(dst, b)
	}
	if kind == answerFindings {
		return dst, nil
	}
	b, err := json.Marshal(j.Sizes())
	return append(dst, b...), err
}

// decodeResult is appendResult's reverse: the findings, the sizes when the
// frame has them, and whether it answers an item.
func decodeResult(frame []byte) (found []contract.Finding, sizes *Sizes, answers bool, err error) {
	d := decoder{b: frame}
	kind, n := d.byte(), d.uvarint()
	if d.err != nil || n > uint64(len(frame)) || kind > answerSizes || (kind == answerSizes && n > 0) {
		return nil, nil, false, errFrame
	}
	found = make([]contract.Finding, 0, n)
	for range n {
		var f contract.Finding
		if err := json.Unmarshal(d.bytes(), &f); d.err != nil || err != nil {
			return nil, nil, false, errFrame
		}
		found = append(found, f)
	}
	switch {
	case kind == answerFindings && len(d.b) > 0:
		return nil, nil, false, errFrame
	case kind != answerFindings:
		sizes = &Sizes{}
		if err := json.Unmarshal(d.b, sizes); err != nil {
			return nil, nil, false, errFrame
		}
	}
	return found, sizes, kind != answerSizes, nil
}

// Process is the proxy's side of a judging process.
type Process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu   sync.Mutex // the judging goroutine writes, the timer and Close flush
	w     *bufio.Writer
	buf   []byte // the item being encoded
	hdr   []byte // its length
	timer *time.Timer
	armed bool // the timer will flush

	mu       sync.Mutex
	dead     bool // the process ended, or could not be written to
	closing  bool // Close ended its input: its end is expected
	broke    bool // it ended before Close: the proxy judges in its place
	inFlight int  // items sent and not answered
	ended    chan struct{}
	err      error // why the reader stopped, once ended is closed

	sizes atomic.Pointer[Sizes]
	lost  atomic.Int64 // items sent and never answered
}

// Sink takes what a judging process answers (the proxy).
type Sink interface {
	// Record takes a finding of an item sent.
	Record(contract.Finding)
	// Judged says that an item sent has been judged, or given up: its
	// findings, if any, were recorded before.
	Judged()
	// Log takes a line for the proxy's log.
	Log(string)
}

// Start starts cmd as a judging process (Serve on its standard input and
// output) and sends it cfg; its answers go to sink. Its standard error is
// this process's, unless cmd sets one.
func Start(cmd *exec.Cmd, cfg Config, sink Sink) (*Process, error) {
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the judging process %s: %w", cmd.Path, err)
	}
	jp := &Process{cmd: cmd, stdin: stdin, w: bufio.NewWriterSize(stdin, 64<<10), ended: make(chan struct{})}
	b, err := json.Marshal(cfg)
	if err == nil {
		_, err = jp.w.Write(appendFrame(nil, b))
	}
	if err == nil {
		err = jp.w.Flush()
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the judging process %s: %w", cmd.Path, err)
	}
	go jp.read(bufio.NewReaderSize(stdout, 64<<10), sink)
	return jp, nil
}

// Send hands the item to the process; false when the caller must judge it
// itself: the process is gone, or the item is over MaxFrame encoded (the
// proxy's bodies are at most 1 MiB each, but an upstream's headers can be
// longer). Its findings come back to the Sink's Record, then its Judged.
func (jp *Process) Send(it Item) bool {
	jp.wmu.Lock()
	defer jp.wmu.Unlock()
	jp.buf = appendItem(jp.buf[:0], it)
	if len(jp.buf) > MaxFrame {
		return false
	}
	jp.mu.Lock()
	if jp.dead {
		jp.mu.Unlock()
		return false
	}
	jp.inFlight++
	jp.mu.Unlock()
	_, err := jp.w.Write(appendUvarint(jp.hdr[:0], uint64(len(jp.buf))))
	if err == nil {
		_, err = jp.w.Write(jp.buf)
	}
	if err != nil {
		jp.fail(err)
	}
	return true
}

// Idle is called by the judging goroutine when it has nothing more to hand
// over: what Send buffered goes to the process within handOverDelay, with
// whatever is handed over meanwhile, in one write.
func (jp *Process) Idle() {
	jp.wmu.Lock()
	defer jp.wmu.Unlock()
	if jp.armed || jp.w.Buffered() == 0 {
		return
	}
	jp.armed = true
	if jp.timer == nil {
		jp.timer = time.AfterFunc(handOverDelay, jp.flush)
		return
	}
	jp.timer.Reset(handOverDelay)
}

// flush writes what Send buffered.
func (jp *Process) flush() {
	jp.wmu.Lock()
	defer jp.wmu.Unlock()
	jp.armed = false
	if err := jp.w.Flush(); err != nil {
		jp.fail(err)
	}
}

// fail marks the process gone and, unless Close ended it, stops it: its
// reader then gives up the items in flight.
func (jp *Process) fail(err error) {
	jp.mu.Lock()
	if !jp.dead {
		jp.dead = true
		jp.err = err
	}
	closing := jp.closing
	jp.broke = jp.broke || !closing
	jp.mu.Unlock()
	if !closing {
		_ = jp.cmd.Process.Kill()
	}
}

// read takes the process's answers until it ends, recording each item's
// findings; then it gives up the items still in flight, which stay
// unjudged.
func (jp *Process) read(r *bufio.Reader, sink Sink) {
	defer close(jp.ended)
	var buf []byte
	var err error
	for {
		var frame []byte
		if frame, err = readFrame(r, buf); err != nil {
			break
		}
		buf = frame[:0]
		found, sizes, answers, derr := decodeResult(frame)
		if derr != nil {
			err = derr
			break
		}
		if sizes != nil {
			jp.sizes.Store(sizes)
		}
		if !answers {
			continue
		}
		for _, f := range found {
			sink.Record(f)
		}
		jp.mu.Lock()
		jp.inFlight--
		jp.mu.Unlock()
		sink.Judged()
	}
	jp.fail(err)
	jp.mu.Lock()
	n, closing, why := jp.inFlight, jp.closing, jp.err
	jp.inFlight = 0
	jp.mu.Unlock()
	werr := jp.cmd.Wait()
	if closing && n == 0 {
		return
	}
	jp.lost.Add(int64(n))
	if werr != nil {
		why = werr
	}
	sink.Log(fmt.Sprintf("pixsandbox proxy: the judging process ended (%v): %d exchanges were not judged; the proxy judges the rest itself, from an empty state model", why, n))
	for range n {
		sink.Judged()
	}
}

// Close ends the process's input and waits for it to end: the proxy has
// nothing more to judge (the proxy's Close, after every item was judged).
func (jp *Process) Close() error {
	jp.mu.Lock()
	jp.closing = true
	dead := jp.dead
	jp.mu.Unlock()
	var err error
	if !dead { // a process that ended already said why (read)
		jp.wmu.Lock()
		if jp.timer != nil {
			jp.timer.Stop()
		}
		err = errors.Join(jp.w.Flush(), jp.stdin.Close())
		jp.wmu.Unlock()
	}
	<-jp.ended
	return err
}

// Broken reports whether the process ended before Close: the proxy's own
// Judges judge in its place since.
func (jp *Process) Broken() bool {
	jp.mu.Lock()
	defer jp.mu.Unlock()
	return jp.broke
}

// Sizes returns the model's sizes of the process's last report, nil before
// its first.
func (jp *Process) Sizes() *Sizes { return jp.sizes.Load() }

// Lost returns how many items were sent and never answered: the process
// ended before it judged them.
func (jp *Process) Lost() int64 { return jp.lost.Load() }
