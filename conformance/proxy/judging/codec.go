package judging

import (
	"bufio"
	"encoding/binary"
	"net/http"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// The encoding of an item for a judging process (process.go): what the
// rules read of the exchange, field by field, lengths as uvarints. A nil
// body or header is told from an empty one (the rules tell them apart).

const (
	itemDelivery = 1 << iota
	itemAlone
	itemStartSet
	itemEndSet
)

func appendUvarint(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

func readUvarint(r *bufio.Reader) (uint64, error) { return binary.ReadUvarint(r) }

func appendBytes(dst, b []byte) []byte {
	return append(appendUvarint(dst, uint64(len(b))), b...)
}

func appendString(dst []byte, s string) []byte {
	return append(appendUvarint(dst, uint64(len(s))), s...)
}

// appendOptBytes tells nil (0) from a body of n bytes (n+1).
func appendOptBytes(dst, b []byte) []byte {
	if b == nil {
		return appendUvarint(dst, 0)
	}
	return append(appendUvarint(dst, uint64(len(b))+1), b...)
}

// appendHeader tells nil (0) from a header of n names (n+1).
func appendHeader(dst []byte, h http.Header) []byte {
	if h == nil {
		return appendUvarint(dst, 0)
	}
	dst = appendUvarint(dst, uint64(len(h))+1)
	for k, vs := range h {
		dst = appendString(dst, k)
		dst = appendUvarint(dst, uint64(len(vs)))
		for _, v := range vs {
			dst = appendString(dst, v)
		}
	}
	return dst
}

// appendItem encodes the item.
func appendItem(dst []byte, it Item) []byte {
	ex := it.Ex
	var flags byte
	for _, f := range []struct {
		on  bool
		bit byte
	}{{it.Delivery, itemDelivery}, {ex.Alone, itemAlone}, {!ex.Start.IsZero(), itemStartSet}, {!ex.End.IsZero(), itemEndSet}} {
		if f.on {
			flags |= f.bit
		}
	}
	dst = append(dst, flags)
	dst = appendUvarint(dst, ex.Seq)
	for _, s := range []string{ex.RequestID, ex.Method, ex.Path, ex.RawQuery, ex.ReqUnjudged, ex.RespUnjudged, it.Failed} {
		dst = appendString(dst, s)
	}
	dst = appendHeader(dst, ex.ReqHeader)
	dst = appendOptBytes(dst, ex.ReqBody)
	dst = appendUvarint(dst, uint64(ex.Status))
	dst = appendHeader(dst, ex.RespHeader)
	dst = appendOptBytes(dst, ex.RespBody)
	dst = binary.AppendVarint(dst, ex.Start.UnixNano())
	return binary.AppendVarint(dst, ex.End.UnixNano())
}

// decodeItem is appendItem's reverse; the item's exchange is new, its
// strings and bodies copies (the frame's buffer is reused).
func decodeItem(frame []byte) (Item, error) {
	d := decoder{b: frame}
	flags := d.byte()
	ex := &contract.Exchange{Seq: d.uvarint(), Alone: flags&itemAlone != 0}
	it := Item{Ex: ex, Delivery: flags&itemDelivery != 0}
	for _, s := range []*string{&ex.RequestID, &ex.Method, &ex.Path, &ex.RawQuery, &ex.ReqUnjudged, &ex.RespUnjudged, &it.Failed} {
		*s = d.string()
	}
	ex.ReqHeader = d.header()
	ex.ReqBody = d.optBytes()
	status := d.uvarint()
	ex.RespHeader = d.header()
	ex.RespBody = d.optBytes()
	start, end := d.varint(), d.varint()
	if d.err == nil && (status > 999 || len(d.b) != 0 || flags >= itemEndSet<<1) {
		d.err = errFrame
	}
	if d.err != nil {
		return Item{}, d.err
	}
	ex.Status = int(status)
	if flags&itemStartSet != 0 {
		ex.Start = time.Unix(0, start)
	}
	if flags&itemEndSet != 0 {
		ex.End = time.Unix(0, end)
	}
	return it, nil
}

// decoder reads what the append functions wrote; the first error sticks
// and every read after it returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errFrame
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errFrame
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errFrame
		return 0
	}
	d.b = d.b[n:]
	return v
}

// take returns the next n bytes (not copied).
func (d *decoder) take(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errFrame
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

// bytes returns a uvarint-prefixed run of bytes (not copied).
func (d *decoder) bytes() []byte { return d.take(d.uvarint()) }

func (d *decoder) string() string { return string(d.bytes()) }

func (d *decoder) optBytes() []byte {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return nil
	}
	return append([]byte{}, d.take(n-1)...)
}

func (d *decoder) header() http.Header {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return nil
	}
	n--
	if n > uint64(len(d.b)) { // each name takes a byte at least
		d.err = errFrame
		return nil
	}
	h := make(http.Header, n)
	for range n {
		k := d.string()
		m := d.uvarint()
		if d.err != nil || m > uint64(len(d.b)) {
			d.err = errFrame
			return nil
		}
		vs := make([]string, 0, m)
		for range m {
			vs = append(vs, d.string())
		}
		h[k] = vs
	}
	return h
}
