package api

import (
	"context"
	"testing"
	"time"
)

// A run a cap budget stopped answers which budget it was and its limit,
// on GET /api/runs/{id} and in the list; other runs carry no budgetStop.
func TestRunAnswerNamesTheBudgetThatStoppedIt(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.st.InsertAgent(context.Background(), "thrifty", "Thrifty", "clawboo-mock", 1); err != nil {
		t.Fatal(err)
	}
	if code, _, b := f.do(t, "POST", "/api/budgets", `{"scope":"agent","scopeId":"thrifty","limitUsd":0.02,"mode":"cap"}`); code != 200 {
		t.Fatal(code, string(b))
	}
	type answer struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		Error      string `json:"error"`
		BudgetStop *struct {
			Scope    string   `json:"scope"`
			ScopeID  string   `json:"scopeId"`
			LimitUSD *float64 `json:"limitUsd"`
		} `json:"budgetStop"`
	}
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!cost 0.03\n!ok more","agentId":"thrifty"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	id := decode[map[string]any](t, b)["runId"].(string)
	var got answer
	for deadline := time.Now().Add(5 * time.Second); ; {
		_, _, b = f.do(t, "GET", "/api/runs/"+id, "")
		if got = decode[answer](t, b); got.BudgetStop != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got.Status != "aborted" || got.Error != "budget_paused:agent" || got.BudgetStop == nil {
		t.Fatalf("%s", b)
	}
	if s := got.BudgetStop; s.Scope != "agent" || s.ScopeID != "thrifty" || s.LimitUSD == nil || *s.LimitUSD != 0.02 {
		t.Fatalf("%+v", *s)
	}
	_, _, b = f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!ok fine"}`)
	other := decode[map[string]any](t, b)["runId"].(string)
	_, _, b = f.do(t, "GET", "/api/runs", "")
	list := decode[struct{ Runs []answer }](t, b)
	seen := 0
	for _, r := range list.Runs {
		switch r.ID {
		case id:
			seen++
			if r.BudgetStop == nil || r.BudgetStop.ScopeID != "thrifty" {
				t.Fatalf("list: %+v", r)
			}
		case other:
			seen++
			if r.BudgetStop != nil {
				t.Fatalf("an ordinary run has a budgetStop: %+v", r)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("%s", b)
	}
}
