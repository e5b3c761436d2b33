package stdiobridge

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadLine: lines are bounded whatever the buffer, a long one is
// dropped to its end, and line ends are "\n" or "\r\n".
func TestReadLine(t *testing.T) {
	type want struct {
		data    string
		tooLong bool
	}
	const limit = 20
	input := strings.Join([]string{
		"short",
		strings.Repeat("a", limit),          // exactly the limit
		strings.Repeat("b", limit+1),        // one over
		strings.Repeat("c", 5*limit) + "\r", // over, across several buffers
		"after\r",
		"",
		"last without end",
	}, "\n")
	wants := []want{
		{"short", false},
		{strings.Repeat("a", limit), false},
		{"", true},
		{"", true},
		{"after", false},
		{"", false},
		{"last without end", false},
	}
	r := bufio.NewReaderSize(strings.NewReader(input), 16) // the smallest buffer bufio allows
	for i, w := range wants {
		data, tooLong, err := readLine(r, limit)
		if string(data) != w.data || tooLong != w.tooLong {
			t.Fatalf("line %d: got %q tooLong=%v, want %q tooLong=%v", i, data, tooLong, w.data, w.tooLong)
		}
		if last := i == len(wants)-1; last != errors.Is(err, io.EOF) || (!last && err != nil) {
			t.Fatalf("line %d: err %v", i, err)
		}
	}
}

// TestReadLinesStopsWhenDone: the reader gives up sending once Run is done.
func TestReadLinesStopsWhenDone(t *testing.T) {
	lines := make(chan line)
	done := make(chan struct{})
	close(done)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		readLines(strings.NewReader("{}\n{}\n"), MaxLine, lines, done)
	}()
	<-finished
	if _, ok := <-lines; ok {
		t.Fatal("readLines sent a line after done")
	}
}

// TestReadLinesReportsFailure: a read error other than EOF is the last line.
func TestReadLinesReportsFailure(t *testing.T) {
	boom := errors.New("boom")
	lines := make(chan line)
	go readLines(io.MultiReader(strings.NewReader("{}\n"), &errReader{boom}), MaxLine, lines, make(chan struct{}))
	if l := <-lines; string(l.data) != "{}" {
		t.Fatalf("first line %+v", l)
	}
	if l := <-lines; !errors.Is(l.err, boom) {
		t.Fatalf("second line %+v, want the read error", l)
	}
	if _, ok := <-lines; ok {
		t.Fatal("lines not closed after the failure")
	}
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }
