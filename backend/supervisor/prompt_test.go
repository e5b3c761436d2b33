package supervisor

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/executor"
)

// A run's whole message is stored with its row (a chat shows the person's
// whole turn, not the title's first line), with a pasted key redacted.
func TestRunStoresItsWholePromptRedacted(t *testing.T) {
	e := setup(t, Options{})
	msg := "!ok hello\nsecond line of the message\n\nmy key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"
	r := e.run(t, executor.Mock, msg)
	got := e.ledger(t, r.ID)
	if got.Title != "!ok hello" {
		t.Fatalf("title %q", got.Title)
	}
	want := "!ok hello\nsecond line of the message\n\nmy key is [REDACTED]"
	if got.Prompt != want {
		t.Fatalf("prompt %q, want %q", got.Prompt, want)
	}
	if strings.Contains(got.Prompt, "sk-ant") || strings.Contains(r.Prompt, "sk-ant") {
		t.Fatal("the key is stored")
	}
}

// A long message is cut to 16 KiB at a rune boundary and says so.
func TestRunPromptIsBounded(t *testing.T) {
	if got := runPrompt("short\nmessage"); got != "short\nmessage" {
		t.Fatalf("%q", got)
	}
	for _, unit := range []string{"a", "é", "日本", "😀"} {
		long := strings.Repeat(unit, 20_000)
		got := runPrompt(long)
		if len(got) > maxPrompt || !utf8.ValidString(got) || !strings.HasSuffix(got, promptCut) {
			t.Fatalf("%s: %d bytes, valid %v, tail %q", unit, len(got), utf8.ValidString(got), got[len(got)-60:])
		}
		if body := strings.TrimSuffix(got, promptCut); !strings.HasPrefix(long, body) || len(body) < maxPrompt-len(promptCut)-4 {
			t.Fatalf("%s: body of %d bytes", unit, len(body))
		}
	}
	exact := strings.Repeat("x", maxPrompt)
	if runPrompt(exact) != exact {
		t.Fatal("a message of exactly 16 KiB is cut")
	}
}
