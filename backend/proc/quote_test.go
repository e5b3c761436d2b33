package proc

import "testing"

func TestQuoteArgv(t *testing.T) {
	if got := QuoteArgv([]string{"git", "commit", "-m", "it's done", "a b"}); got != `git commit -m 'it'\''s done' 'a b'` {
		t.Fatalf("%s", got)
	}
}
