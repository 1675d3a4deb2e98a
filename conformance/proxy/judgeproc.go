package proxy

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

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// A judging process holds the proxy's judges (Options.JudgeProcess): the
// proxy forwards, captures and hands each exchange over a pipe, in the
// order it judges them; the process judges and hands back the findings.
// In one process, the requests waited out the collector's marks of the
// state model and the judging goroutine's bursts, which share Go's
// processors with them (docs/performance-log.md, "The judging in a process
// of its own"); a process of its own, at a lower priority, leaves the
// operating system to give a request that becomes ready its CPU at once.
//
// Both directions carry frames: a uvarint length and that many bytes. To
// the process: a judgeConfig in JSON, then one item a frame (appendItem).
// Back: one frame an item, in order: a uvarint count of findings, each a
// uvarint length and its JSON, then a byte 1 and the modelSizes in JSON
// (sent before the process waits for more input) or a byte 0.

// maxFrame bounds a frame: two bodies of BodyLimit, headers and the rest.
const maxFrame = 4 * BodyLimit

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
	if n > maxFrame {
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

// ServeJudging is a judging process: it reads the judgeConfig and the items
// from in and writes each item's findings to out, until in ends.
func ServeJudging(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	frame, err := readFrame(r, nil)
	if err != nil {
		return fmt.Errorf("judging: the configuration: %w", err)
	}
	var cfg judgeConfig
	if err := json.Unmarshal(frame, &cfg); err != nil {
		return fmt.Errorf("judging: the configuration: %w", err)
	}
	j := newJudges(cfg)
	var buf, res []byte
	for {
		frame, err := readFrame(r, buf)
		if err == io.EOF {
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
		found := j.judge(it)
		idle := r.Buffered() == 0
		if res, err = appendResult(res[:0], found, j, idle); err != nil {
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

// appendResult encodes an item's findings and, when sizes, the judges'
// model sizes.
func appendResult(dst []byte, found []contract.Finding, j *judges, sizes bool) ([]byte, error) {
	dst = appendUvarint(dst, uint64(len(found)))
	for _, f := range found {
		b, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		dst = appendBytes(dst, b)
	}
	if !sizes {
		return append(dst, 0), nil
	}
	b, err := json.Marshal(j.sizes())
	if err != nil {
		return nil, err
	}
	return append(append(dst, 1), b...), nil
}

// decodeResult is appendResult's reverse: the findings and, when the frame
// has them, the sizes.
func decodeResult(frame []byte) ([]contract.Finding, *modelSizes, error) {
	d := decoder{b: frame}
	n := d.uvarint()
	if d.err != nil || n > uint64(len(frame)) {
		return nil, nil, errFrame
	}
	found := make([]contract.Finding, 0, n)
	for range n {
		var f contract.Finding
		if err := json.Unmarshal(d.bytes(), &f); d.err != nil || err != nil {
			return nil, nil, errFrame
		}
		found = append(found, f)
	}
	switch flag := d.byte(); {
	case d.err != nil:
		return nil, nil, errFrame
	case flag == 0 && len(d.b) == 0:
		return found, nil, nil
	case flag == 1:
		var s modelSizes
		if err := json.Unmarshal(d.b, &s); err != nil {
			return nil, nil, errFrame
		}
		return found, &s, nil
	}
	return nil, nil, errFrame
}

// judgingProcess is the proxy's side of a judging process.
type judgingProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu sync.Mutex // the judging goroutine writes, Close flushes last
	w   *bufio.Writer
	buf []byte // the item being encoded
	hdr []byte // its length

	mu       sync.Mutex
	dead     bool // the process ended, or could not be written to
	closing  bool // Close ended its input: its end is expected
	broke    bool // it ended before Close: the proxy judges in its place
	inFlight int  // items sent and not answered
	ended    chan struct{}
	err      error // why the reader stopped, once ended is closed

	sizes atomic.Pointer[modelSizes]
	lost  atomic.Int64 // items sent and never answered
}

// startJudging starts cmd as a judging process for p and sends it cfg; its
// standard error is the proxy's, unless cmd sets one.
func startJudging(cmd *exec.Cmd, cfg judgeConfig, p *Proxy) (*judgingProcess, error) {
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
	jp := &judgingProcess{cmd: cmd, stdin: stdin, w: bufio.NewWriterSize(stdin, 64<<10), ended: make(chan struct{})}
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
	go jp.read(bufio.NewReaderSize(stdout, 64<<10), p)
	return jp, nil
}

// send hands the item to the process; false when the process is gone and
// the caller must judge it itself. Its findings come back to p.record and
// the item counts as judged then (Proxy.pending).
func (jp *judgingProcess) send(it item) bool {
	jp.mu.Lock()
	if jp.dead {
		jp.mu.Unlock()
		return false
	}
	jp.inFlight++
	jp.mu.Unlock()
	jp.wmu.Lock()
	defer jp.wmu.Unlock()
	jp.buf = appendItem(jp.buf[:0], it)
	var err error
	if len(jp.buf) > maxFrame {
		err = fmt.Errorf("an exchange of %d bytes encoded", len(jp.buf))
	} else if _, err = jp.w.Write(appendUvarint(jp.hdr[:0], uint64(len(jp.buf)))); err == nil {
		_, err = jp.w.Write(jp.buf)
	}
	if err != nil {
		jp.fail(err)
	}
	return true
}

// flush writes what send buffered: the judging goroutine calls it when it
// has nothing more to hand over.
func (jp *judgingProcess) flush() {
	jp.wmu.Lock()
	defer jp.wmu.Unlock()
	if err := jp.w.Flush(); err != nil {
		jp.fail(err)
	}
}

// fail marks the process gone and, unless Close ended it, stops it: its
// reader then gives up the items in flight.
func (jp *judgingProcess) fail(err error) {
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
func (jp *judgingProcess) read(r *bufio.Reader, p *Proxy) {
	defer close(jp.ended)
	var buf []byte
	var err error
	for {
		var frame []byte
		if frame, err = readFrame(r, buf); err != nil {
			break
		}
		buf = frame[:0]
		found, sizes, derr := decodeResult(frame)
		if derr != nil {
			err = derr
			break
		}
		if sizes != nil {
			jp.sizes.Store(sizes)
		}
		for _, f := range found {
			p.record(f)
		}
		jp.mu.Lock()
		jp.inFlight--
		jp.mu.Unlock()
		p.pending.done()
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
	p.logLine(fmt.Sprintf("pixsandbox proxy: the judging process ended (%v): %d exchanges were not judged; the proxy judges the rest itself, from an empty state model", why, n))
	for range n {
		p.pending.done()
	}
}

// close ends the process's input and waits for it to end: the proxy has
// nothing more to judge (Server.Shutdown after Quiesce).
func (jp *judgingProcess) close() error {
	jp.mu.Lock()
	jp.closing = true
	dead := jp.dead
	jp.mu.Unlock()
	var err error
	if !dead { // a process that ended already said why (read)
		jp.wmu.Lock()
		err = errors.Join(jp.w.Flush(), jp.stdin.Close())
		jp.wmu.Unlock()
	}
	<-jp.ended
	return err
}

// broken reports whether the process ended before Close: the proxy's own
// judges judge in its place since.
func (jp *judgingProcess) broken() bool {
	jp.mu.Lock()
	defer jp.mu.Unlock()
	return jp.broke
}
