package board

import (
	"strings"
	"testing"
)

func TestTaskSecretsAreNamesOnly(t *testing.T) {
	b, _ := newBoard(t)
	ctx := t.Context()
	task, err := b.Create(ctx, NewTask{Title: "pay", Secrets: []string{" STRIPE_KEY", "DB_URL", "STRIPE_KEY"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(task.Secrets, ","); got != "DB_URL,STRIPE_KEY" {
		t.Fatalf("secrets %q", got)
	}
	plain, err := b.Create(ctx, NewTask{Title: "plain"})
	if err != nil || plain.Secrets == nil || len(plain.Secrets) != 0 {
		t.Fatalf("a task without secrets: %v %v", plain.Secrets, err)
	}
	for _, bad := range [][]string{{"sk-live-pasted-value"}, {"lower"}, {""}, {strings.Repeat("A", 59)}} {
		_, err := b.Create(ctx, NewTask{Title: "x", Secrets: bad})
		if err == nil || strings.Contains(err.Error(), "pasted") {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	many := make([]string, MaxSecrets+1)
	for i := range many {
		many[i] = "S" + strings.Repeat("X", i+1)
	}
	if _, err := b.Create(ctx, NewTask{Title: "x", Secrets: many}); err == nil {
		t.Fatal("more than MaxSecrets secrets")
	}
	none := []string{}
	got, err := b.Update(ctx, task.ID, Patch{Secrets: &none})
	if err != nil || len(got.Secrets) != 0 {
		t.Fatalf("clear: %v %v", got.Secrets, err)
	}
	one := []string{"API_TOKEN"}
	if got, err = b.Update(ctx, task.ID, Patch{Secrets: &one}); err != nil || strings.Join(got.Secrets, ",") != "API_TOKEN" {
		t.Fatalf("set: %v %v", got.Secrets, err)
	}
	if got, err = b.Update(ctx, task.ID, Patch{Title: &task.Title}); err != nil || strings.Join(got.Secrets, ",") != "API_TOKEN" {
		t.Fatalf("an unrelated patch changed them: %v %v", got.Secrets, err)
	}
}
