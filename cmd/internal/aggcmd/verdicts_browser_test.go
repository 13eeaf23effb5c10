package aggcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/browsertest"
	"github.com/evalmd/evalmd/report"
	"github.com/evalmd/evalmd/verdict"
)

// waitEval evaluates js in the page until it returns want (JSON as Go
// writes it), for a minute at most.
func waitEval(t *testing.T, page *browsertest.Page, js, want, why string) {
	t.Helper()
	var got string
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var v any
		if err = page.Eval(js, &v); err == nil {
			b, _ := json.Marshal(v)
			if got = string(b); got == want {
				return
			}
		}
	}
	t.Fatalf("%s: %s is %s (%v), want %s", why, js, got, err, want)
}

// evilPage is a page of another origin whose script sends the served
// page's verdict, token and all, to target: once as the page's own
// script does (the browser asks target's leave first), once as a
// "simple" request a form could send.
func evilPage(target, token string) string {
	body, _ := json.Marshal(report.VerdictRequest{File: "sub/" + outputName, Index: 1, Answer: digest("5"), Verdict: "wrong"})
	return fmt.Sprintf(`<!DOCTYPE html><html><body><script>
var body = %q, target = %q, h = {'Content-Type': 'application/json'};
h[%q] = %q;
Promise.all([
  fetch(target, {method: 'POST', headers: h, body: body}).then(function (r) { return 'cors ' + r.status; }, function () { return 'cors blocked'; }),
  fetch(target, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: body}).then(function (r) { return 'no-cors ' + r.type; }, function () { return 'no-cors blocked'; })
]).then(function (rs) { document.body.dataset.done = rs.join('; '); });
</script></body></html>`, body, target, report.TokenHeader, token)
}

// In a browser: a page of another origin that knows the token cannot
// send a verdict; the served page's override marks the answer right at
// once, and the leaderboard counts it after the page reloads itself.
func TestServeVerdictBrowser(t *testing.T) {
	bin := browsertest.Find(t)
	dir, output := outputsDir(t)
	url, stderr, _ := serveDir(t, dir)
	_, served := get(t, "GET", url, "")
	m := regexp.MustCompile(`data-token="([0-9a-f]+)"`).FindStringSubmatch(served)
	if m == nil {
		t.Fatalf("the served page holds no token:\n%.1000s", served)
	}
	before, _ := os.ReadFile(output)

	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(evilPage(url+"verdict", m[1])))
	}))
	defer evil.Close()
	page := browsertest.Open(t, bin, evil.URL+"/")
	waitEval(t, page, `document.body && document.body.dataset.done || null`, `"cors blocked; no-cors opaque"`, "the other origin's page")
	if _, err := os.Stat(filepath.Join(dir, "sub", verdict.FileName)); err == nil {
		t.Fatal("a page of another origin wrote a verdict")
	}
	if now, _ := os.ReadFile(output); !bytes.Equal(now, before) {
		t.Fatal("a page of another origin rewrote the output")
	}

	if err := page.Eval(`location.href = `+jsString(url+"#tab=questions&q=S/Q2")+`, true`, new(bool)); err != nil {
		t.Fatal(err)
	}
	const mark = `Array.from(document.querySelectorAll('#q-list li[data-key="S/Q2"] .mark')).map(function (m) { return m.className; })`
	// LIME's leaderboard: the table after its heading (the Models summary
	// leads the page).
	const row = `document.querySelector('#tab-board h3[id^="leaderboard"] + table tbody tr')`
	const board = row + ` ? ` + row + `.lastElementChild.textContent : null`
	waitEval(t, page, mark, `["mark g0"]`, "before the verdict")
	waitEval(t, page, board, `"0.5"`, "the leaderboard before")
	click := `(function () {
  var who = document.getElementById('reviewer');
  who.value = 'bea';
  who.dispatchEvent(new Event('change'));
  var card = document.querySelector('#q-view .answer');
  card.querySelector('.override input.reason').value = 'close enough';
  card.querySelector('.override button[data-verdict="right"]').click();
  return true;
})()`
	if err := page.Eval(click, new(bool)); err != nil {
		t.Fatal(err)
	}
	waitEval(t, page, mark, `["mark g1 rv"]`, "after the verdict")
	waitEval(t, page, board, `"1"`, "the leaderboard after")
	waitEval(t, page, `document.querySelector('#q-view .reviewed') ? document.querySelector('#q-view .reviewed').textContent.replace(/ at \S+/, '') : null`,
		`"A person’s verdict: right, by bea (close enough); the grader said wrong."`, "the answer's card")
	waitEval(t, page, `document.getElementById('reviewer').value`, `"bea"`, "the reviewer's name after the reload")
	assertVerdict(t, dir, output, "bea")
	if strings.Contains(stderr.String(), "verdict:") {
		t.Errorf("agg --serve said:\n%s", stderr)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
