package stdiobridge

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// readBuffer is the size of the stdin reader's buffer: a line is read in
// pieces of at most this, so a long one is refused having held no more than
// the limit and one piece.
const readBuffer = 64 << 10

// line is one stdin line, without its line end, or why there are no more.
type line struct {
	data    []byte
	tooLong bool  // the line was longer than the limit; data is empty
	err     error // reading failed (not EOF); the last line sent
}

// readLines sends in's lines until in ends or fails, or done is closed,
// then closes lines. A failure other than EOF is sent as a last line.
func readLines(in io.Reader, limit int, lines chan<- line, done <-chan struct{}) {
	defer close(lines)
	r := bufio.NewReaderSize(in, readBuffer)
	send := func(l line) bool {
		select {
		case lines <- l:
			return true
		case <-done:
			return false
		}
	}
	for {
		data, tooLong, err := readLine(r, limit)
		if (len(data) > 0 || tooLong) && !send(line{data: data, tooLong: tooLong}) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				send(line{err: err})
			}
			return
		}
	}
}

// readLine reads one line of at most limit bytes, not counting its "\n" or
// "\r\n". A longer line is read to its end and dropped: it comes back empty
// with tooLong set. A last line without a line end comes back with io.EOF.
func readLine(r *bufio.Reader, limit int) (data []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			data = append(data, chunk...)
			if len(trimEnd(data)) > limit {
				data, tooLong = nil, true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return trimEnd(data), tooLong, err
	}
}

// trimEnd drops a line's "\n" or "\r\n".
func trimEnd(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
