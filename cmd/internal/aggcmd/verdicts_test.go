package aggcmd

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/report"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// twoAnswers is an output of model m1: Q1 right, Q2 wrong (its truth 6,
// its answer 5).
const twoAnswers = `{"sheet": {"name": "S", "run_id": "r1", "model_name": "m1", "meta_data": {}, "question": null, "sheet_file": "input-s.md"},
"questions": [
{"name": "Q1", "meta_data": null, "ground_truth": "4", "question": "2+2?", "completion": "4", "error": null, "model_name": "m1", "eval_time": 1, "grade": true, "grader": "exact"},
{"name": "Q2", "meta_data": null, "ground_truth": "6", "question": "2*3?", "completion": "5", "error": null, "model_name": "m1", "eval_time": 1, "grade": false, "grader": "exact"}]}`

const outputName = "output-s-m1-r1.json"

// outputsDir is a folder holding twoAnswers in a folder of its own (the
// page names it sub/output-s-m1-r1.json), and the output's path.
func outputsDir(t *testing.T) (dir, output string) {
	t.Helper()
	dir = t.TempDir()
	output = filepath.Join(dir, "sub", outputName)
	if err := os.MkdirAll(filepath.Dir(output), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(output, []byte(twoAnswers), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, output
}

// startServer serves dir as agg --serve does, on 127.0.0.1.
func startServer(t *testing.T, dir string, allowRemote bool) (*server, string, *bytes.Buffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	s, err := newServer(&stderr, ln.Addr(), serveOptions{dir: dir, allowRemote: allowRemote, by: "server-user"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(s)
	hs.Listener.Close()
	hs.Listener = ln
	hs.Config.ReadHeaderTimeout = 10 * time.Second
	hs.Start()
	t.Cleanup(hs.Close)
	return s, ln.Addr().String(), &stderr
}

// post sends body to addr's /verdict with the headers (a value "" drops
// one) and the Host header host, and returns the status and the reply.
func post(t *testing.T, addr, host, method string, headers map[string]string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+"/verdict", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(reply)
}

func digest(s string) string { return verdict.Digest(&s) }

// A verdict is taken only from the page this server served, names an
// answer of its folder only, and is refused, with one line of JSON and
// nothing written, otherwise; taken, it is in verdicts.txt and in the
// output's grade.
func TestServeVerdict(t *testing.T) {
	dir, output := outputsDir(t)
	// An output that is a link to a file outside: shown, and never
	// rewritten through.
	outside := filepath.Join(t.TempDir(), "output-s-m2-r1.json")
	os.WriteFile(outside, []byte(strings.ReplaceAll(twoAnswers, `"m1"`, `"m2"`)), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "sub", "output-s-m2-r1.json")); err != nil {
		t.Fatal(err)
	}
	s, addr, stderr := startServer(t, dir, false)
	good := func() (map[string]string, map[string]any) {
		return map[string]string{"Origin": "http://" + addr, "Content-Type": "application/json", report.TokenHeader: s.token},
			map[string]any{"file": "sub/" + outputName, "index": 1, "answer": digest("5"), "verdict": "right", "reason": "5 is close", "by": "ann"}
	}
	before, _ := os.ReadFile(output)
	for _, tc := range []struct {
		name   string
		edit   func(h map[string]string, b map[string]any)
		host   string
		method string
		raw    []byte // the body, when not b
		status int
		says   string
	}{
		{name: "no token", edit: func(h map[string]string, b map[string]any) { h[report.TokenHeader] = "" }, status: 403, says: "no token"},
		{name: "wrong token", edit: func(h map[string]string, b map[string]any) { h[report.TokenHeader] = strings.Repeat("0", 32) }, status: 403, says: "no token"},
		{name: "wrong Origin", edit: func(h map[string]string, b map[string]any) { h["Origin"] = "http://127.0.0.1:1" }, status: 403, says: "origin"},
		{name: "no Origin", edit: func(h map[string]string, b map[string]any) { h["Origin"] = "" }, status: 403, says: "origin"},
		{name: "another site", edit: func(h map[string]string, b map[string]any) { h["Sec-Fetch-Site"] = "same-site" }, status: 403, says: "Sec-Fetch-Site"},
		{name: "wrong Host", host: "evil.example:80", edit: func(h map[string]string, b map[string]any) { h["Origin"] = "http://evil.example:80" }, status: 403, says: "answers to"},
		{name: "GET", method: "GET", status: 405, says: "POST only"},
		{name: "OPTIONS (a preflight)", method: "OPTIONS", status: 405, says: "POST only"},
		{name: "text/plain", edit: func(h map[string]string, b map[string]any) { h["Content-Type"] = "text/plain" }, status: 415, says: "application/json"},
		{name: "too large", edit: func(h map[string]string, b map[string]any) { b["reason"] = strings.Repeat("x", maxVerdict) }, status: 413, says: "at most"},
		{name: "not JSON", raw: []byte("right"), status: 400, says: "one JSON object"},
		{name: "an unknown field", edit: func(h map[string]string, b map[string]any) { b["path"] = "/etc/passwd" }, status: 400, says: "unknown field"},
		{name: "a path outside", edit: func(h map[string]string, b map[string]any) {
			b["file"] = "../" + filepath.Base(dir) + "/sub/" + outputName
		}, status: 400, says: "not an output file"},
		{name: "an absolute path", edit: func(h map[string]string, b map[string]any) { b["file"] = output }, status: 400, says: "not an output file"},
		{name: "a link", edit: func(h map[string]string, b map[string]any) { b["file"] = "sub/output-s-m2-r1.json" }, status: 400, says: "a link"},
		{name: "a file not an output", edit: func(h map[string]string, b map[string]any) { b["file"] = "sub/verdicts.txt" }, status: 400, says: "not an output file"},
		{name: "no such question", edit: func(h map[string]string, b map[string]any) { b["index"] = 2 }, status: 400, says: "has no question 2"},
		{name: "another answer", edit: func(h map[string]string, b map[string]any) { b["answer"] = digest("6") }, status: 409, says: "changed since the page was made"},
		{name: "no such verdict", edit: func(h map[string]string, b map[string]any) { b["verdict"] = "maybe" }, status: 400, says: `verdict "maybe"`},
		{name: "a long name", edit: func(h map[string]string, b map[string]any) { b["by"] = strings.Repeat("é", maxField+1) }, status: 400, says: "at most 2000 characters"},
	} {
		h, b := good()
		if tc.edit != nil {
			tc.edit(h, b)
		}
		body := tc.raw
		if body == nil {
			body, _ = json.Marshal(b)
		}
		status, reply := post(t, addr, cmpOr(tc.host, addr), cmpOr(tc.method, "POST"), h, body)
		var r report.VerdictReply
		if err := json.Unmarshal([]byte(reply), &r); err != nil || status != tc.status || !strings.Contains(r.Error, tc.says) ||
			strings.Count(strings.TrimSpace(reply), "\n") > 0 {
			t.Errorf("%s: %d %s, want %d and one line of JSON saying %q", tc.name, status, reply, tc.status, tc.says)
		}
		if _, err := os.Stat(filepath.Join(dir, "sub", verdict.FileName)); err == nil {
			t.Fatalf("%s: a verdicts file was written", tc.name)
		}
		if now, _ := os.ReadFile(output); !bytes.Equal(now, before) {
			t.Fatalf("%s: the output was rewritten", tc.name)
		}
	}
	if data, _ := os.ReadFile(outside); strings.Contains(string(data), "review") {
		t.Fatal("the file outside was rewritten through its link")
	}

	h, b := good()
	body, _ := json.Marshal(b)
	status, reply := post(t, addr, addr, "POST", h, body)
	var r report.VerdictReply
	if err := json.Unmarshal([]byte(reply), &r); err != nil || status != 200 || r.Grade != 1 || r.Files != 1 ||
		r.Review == nil || r.Review.By != "ann" || r.Review.Reason != "5 is close" || r.Review.Grader != 0 {
		t.Fatalf("a good verdict: %d %s\n%s", status, reply, stderr)
	}
	assertVerdict(t, dir, output, "ann")
}

// assertVerdict checks that Q2 of the output is right by by's verdict,
// in the verdicts file and in the output.
func assertVerdict(t *testing.T, dir, output, by string) {
	t.Helper()
	line, err := os.ReadFile(filepath.Join(dir, "sub", verdict.FileName))
	if err != nil || !regexp.MustCompile(`(?m)^right sheet=S q=Q2 model=m1 .* by=`+by+` `).Match(line) {
		t.Errorf("verdicts.txt (%v):\n%s", err, line)
	}
	f, err := result.Read(output)
	if err != nil {
		t.Fatal(err)
	}
	q := f.Questions[1]
	if q.Grade == nil || !*q.Grade || q.Review == nil || q.Review.By != by || q.Review.GraderGrade == nil || *q.Review.GraderGrade {
		t.Errorf("the output's Q2: grade %v, review %+v; want right by %s, the grader's wrong kept", q.Grade, q.Review, by)
	}
}

// theSheet is the sheet twoAnswers' run read.
const theSheet = "# S\n\n## Q1\n#### question\n2+2?\n#### answer\n4\n\n## Q2\n#### question\n2*3?\n#### answer\n6\n"

// accept is the answer accepted: Q2's 5 added to the sheet's accepted
// answers, and right by a person's verdict. Without the sheet it is
// refused, and nothing is written.
func TestServeVerdictAccept(t *testing.T) {
	dir, output := outputsDir(t)
	s, addr, stderr := startServer(t, dir, false)
	headers := map[string]string{"Origin": "http://" + addr, "Content-Type": "application/json", report.TokenHeader: s.token}
	body, _ := json.Marshal(report.VerdictRequest{File: "sub/" + outputName, Index: 1, Answer: digest("5"), Verdict: "accept", By: "cy"})
	status, reply := post(t, addr, addr, "POST", headers, body)
	if status != 409 || !strings.Contains(reply, `"not accepted: S / Q2 / m1: the sheet input-s.md its run read is not found`) {
		t.Errorf("accept without the sheet: %d %s", status, reply)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", verdict.FileName)); err == nil {
		t.Fatal("a verdict was written for an answer not accepted")
	}

	sheetPath := filepath.Join(dir, "input-s.md")
	if err := os.WriteFile(sheetPath, []byte(theSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	status, reply = post(t, addr, addr, "POST", headers, body)
	var r report.VerdictReply
	if err := json.Unmarshal([]byte(reply), &r); err != nil || status != 200 || r.Grade != 1 || r.Sheet != sheetPath || r.Files != 1 {
		t.Fatalf("accept: %d %s\n%s", status, reply, stderr)
	}
	data, _ := os.ReadFile(sheetPath)
	if want := "#### answer\n6\n<EVAL-ENDCHAR>\n- accept: 5\n"; !strings.HasSuffix(string(data), want) {
		t.Errorf("the sheet after accept:\n%s\nwant it to end %q", data, want)
	}
	assertVerdict(t, dir, output, "cy")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// The served page holds the token and the buttons' script; served with
// --allow-remote it holds neither, and every verdict is refused.
func TestServeVerdictPage(t *testing.T) {
	dir, _ := outputsDir(t)
	for _, remote := range []bool{false, true} {
		s, addr, _ := startServer(t, dir, remote)
		code, page := get(t, "GET", "http://"+addr+"/", "")
		hasToken := s.token != "" && strings.Contains(page, `data-token="`+s.token+`" data-by="server-user" data-accept="1"`)
		if code != 200 || hasToken == remote || strings.Contains(page, "evalmd:answer', function") == remote ||
			strings.Contains(page, `"ref":{"i":1,"d":"`+digest("5")+`"}`) == remote {
			t.Errorf("allow-remote %v: %d, token %v, script and refs as not expected:\n%.600s", remote, code, hasToken, page)
		}
		if !remote {
			continue
		}
		headers := map[string]string{"Origin": "http://" + addr, "Content-Type": "application/json", report.TokenHeader: ""}
		body, _ := json.Marshal(map[string]any{"file": "sub/" + outputName, "index": 1, "answer": digest("5"), "verdict": "right"})
		if status, reply := post(t, addr, addr, "POST", headers, body); status != 403 || !strings.Contains(reply, "read-only") {
			t.Errorf("a verdict to --allow-remote: %d %s", status, reply)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", verdict.FileName)); err == nil {
		t.Error("a verdicts file was written")
	}
}
