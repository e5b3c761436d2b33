package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/teams"
)

// A room post carries the task it is about (null for none), and a stop's
// kind as stored.
func TestPostViewCarriesItsTask(t *testing.T) {
	n := namer{teams.AuthorSystem: "Clawboo"}
	b, _ := json.Marshal(n.view(teams.Post{Seq: 1, Author: teams.AuthorSystem, Kind: teams.KindStop, Body: "Stopped by you", TaskID: "T1"}))
	if !strings.Contains(string(b), `"taskId":"T1"`) || !strings.Contains(string(b), `"kind":"stop"`) {
		t.Fatalf("%s", b)
	}
	b, _ = json.Marshal(n.view(teams.Post{Seq: 2, Author: teams.AuthorSystem, Kind: teams.KindSystem, Body: "x"}))
	if !strings.Contains(string(b), `"taskId":null`) {
		t.Fatalf("%s", b)
	}
}
