package aggcmd

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/report"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/review"
	"github.com/evalmd/evalmd/verdict"
)

// maxVerdict caps a verdict's body: a name, a file, a reason.
const maxVerdict = 16 << 10

// maxField caps the reviewer's name and the reason, in characters.
const maxField = 2000

// refusal is a verdict refused: the status and the one line said.
type refusal struct {
	status int
	msg    string
}

func (r *refusal) Error() string { return r.msg }

func refuse(status int, format string, args ...any) *refusal {
	return &refusal{status, fmt.Sprintf(format, args...)}
}

// serveVerdict takes a person's verdict on an answer from the page this
// server served (report.VerdictRequest), records it (review.Record: into
// the folder's verdicts file, then every output file carrying the
// answer) and answers with the answer's grade now. Anything else is
// refused with one line of JSON, nothing written.
func (s *server) serveVerdict(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Type", "application/json")
	reply, err := s.verdict(w, r)
	if err != nil {
		var rf *refusal
		if !errors.As(err, &rf) {
			fmt.Fprintf(s.stderr, "agg --serve: verdict: %v\n", err)
			rf = &refusal{http.StatusInternalServerError, oneLine(err.Error())}
		}
		w.WriteHeader(rf.status)
		json.NewEncoder(w).Encode(report.VerdictReply{Error: rf.msg})
		return
	}
	json.NewEncoder(w).Encode(reply)
}

// verdict checks the request, then records its verdict.
func (s *server) verdict(w http.ResponseWriter, r *http.Request) (*report.VerdictReply, error) {
	if err := s.checkSender(r); err != nil {
		return nil, err
	}
	req, err := readVerdict(w, r)
	if err != nil {
		return nil, err
	}
	if req.By == "" {
		req.By = s.opt.Verdicts.By
	}
	s.record.Lock()
	defer s.record.Unlock()
	a, err := s.find(req)
	if err != nil {
		return nil, err
	}
	// A verdict begun is finished even if the page goes away.
	ctx := context.WithoutCancel(r.Context())
	d := review.Decision{Right: req.Verdict != "wrong", By: req.By, Reason: req.Reason}
	if req.Verdict != "accept" {
		rep, err := review.Record(ctx, a, d, s.sealKey())
		if err != nil {
			return nil, err
		}
		return s.replyOf(a, rep)
	}
	before := a.Verdict
	path, rep, err := review.Accept(ctx, a, d, s.sealKey())
	if err != nil {
		if a.Verdict == before {
			// Nothing recorded (no sheet found, or it could not be
			// written): the person's to fix, not the server's.
			return nil, refuse(http.StatusConflict, "not accepted: %s", oneLine(err.Error()))
		}
		return nil, err
	}
	reply, err := s.replyOf(a, rep)
	if reply != nil {
		reply.Sheet = path
	}
	return reply, err
}

// checkSender refuses a request that is not a POST of the page this
// server served: the Host and the Origin this server's (no other page,
// whatever its name, may send one), its token in report.TokenHeader.
func (s *server) checkSender(r *http.Request) error {
	if s.token == "" {
		return refuse(http.StatusForbidden, "this page is read-only: agg --serve --allow-remote takes no verdicts")
	}
	if r.Method != http.MethodPost {
		return refuse(http.StatusMethodNotAllowed, "POST only")
	}
	if !slices.Contains(s.hosts, r.Host) {
		return refuse(http.StatusForbidden, "this server answers to %s only", s.hosts[0])
	}
	if origin := r.Header.Get("Origin"); origin != "http://"+r.Host {
		return refuse(http.StatusForbidden, "a verdict comes from this server's page only (origin %q)", oneLine(origin))
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return refuse(http.StatusForbidden, "a verdict comes from this server's page only (Sec-Fetch-Site %q)", oneLine(site))
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(report.TokenHeader)), []byte(s.token)) != 1 {
		return refuse(http.StatusForbidden, "no token of this server's page (%s): load the page again", report.TokenHeader)
	}
	return nil
}

// readVerdict reads the request's JSON, bounded, and checks its fields.
func readVerdict(w http.ResponseWriter, r *http.Request) (*report.VerdictRequest, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, refuse(http.StatusUnsupportedMediaType, "a verdict is application/json")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxVerdict))
	dec.DisallowUnknownFields()
	var req report.VerdictRequest
	if err := dec.Decode(&req); err != nil {
		var big *http.MaxBytesError
		if errors.As(err, &big) {
			return nil, refuse(http.StatusRequestEntityTooLarge, "a verdict is at most %d bytes", maxVerdict)
		}
		return nil, refuse(http.StatusBadRequest, "a verdict is one JSON object: %s", oneLine(err.Error()))
	}
	if dec.More() {
		return nil, refuse(http.StatusBadRequest, "a verdict is one JSON object")
	}
	switch {
	case req.Verdict != "right" && req.Verdict != "wrong" && req.Verdict != "accept":
		return nil, refuse(http.StatusBadRequest, "verdict %q: right, wrong or accept", oneLine(req.Verdict))
	case utf8.RuneCountInString(req.By) > maxField || utf8.RuneCountInString(req.Reason) > maxField:
		return nil, refuse(http.StatusBadRequest, "the reviewer's name and the reason are at most %d characters", maxField)
	case !utf8.ValidString(req.By) || !utf8.ValidString(req.Reason):
		return nil, refuse(http.StatusBadRequest, "the reviewer's name and the reason are UTF-8")
	}
	req.By, req.Reason = strings.TrimSpace(req.By), strings.TrimSpace(req.Reason)
	return &req, nil
}

// find is the answer req names: question req.Index of the output file
// req.File, one of the files the page shows (a name that is not one of
// them, inside the folder or not, names none), as its graded text was
// when the page was made.
func (s *server) find(req *report.VerdictRequest) (*review.Answer, error) {
	rel := filepath.FromSlash(req.File)
	if !filepath.IsLocal(rel) {
		return nil, refuse(http.StatusBadRequest, "%q: not an output file of the folder served", oneLine(req.File))
	}
	path := filepath.Join(result.DisplayRoot(s.dir), rel)
	files, err := result.Find(s.dir, nil)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(files, func(p string) bool { return filepath.Clean(p) == path }) {
		return nil, refuse(http.StatusBadRequest, "%q: not an output file of the folder served", oneLine(req.File))
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		// The outputs are rewritten through no link: refused before the
		// verdicts file is written, rather than after.
		return nil, refuse(http.StatusBadRequest, "%s: not a regular file (a link?): a verdict rewrites no output through a link", req.File)
	}
	f, err := result.Read(path)
	if err != nil {
		return nil, err
	}
	if req.Index < 0 || req.Index >= len(f.Questions) {
		return nil, refuse(http.StatusBadRequest, "%s has no question %d", req.File, req.Index)
	}
	q := &f.Questions[req.Index]
	graded := regrade.GradedText(f, q)
	k := verdict.KeyOf(f, q, verdict.Occurrences(f)[req.Index], graded)
	if k.Answer != req.Answer {
		return nil, refuse(http.StatusConflict, "%s: the answer to %s changed since the page was made: load it again", req.File, oneLine(q.Name))
	}
	queue, err := review.Load(files, review.Filter{})
	if err != nil {
		return nil, err
	}
	for _, a := range queue.Answers {
		if a.Key == k && a.Dir == filepath.Dir(path) {
			return a, nil
		}
	}
	return nil, refuse(http.StatusBadRequest, "%s: question %d (%s) holds no answer to review (an error, or no answer)", req.File, req.Index, oneLine(q.Name))
}

// sealKey is the machine's key, asked once (nil when there is none: the
// outputs rewritten are then unsealed, and a rerun asks them again).
func (s *server) sealKey() *outfile.Key {
	if !s.asked && s.seal != nil {
		s.asked = true
		key, err := s.seal()
		if err != nil {
			fmt.Fprintf(s.stderr, "agg --serve: the outputs a verdict rewrites stay unsealed: %v\n", err)
		}
		s.key = key
	}
	return s.key
}

// replyOf is the page's news of a recorded: its grade and review, and
// the files rewritten; a file that could not be is the error.
func (s *server) replyOf(a *review.Answer, rep regrade.Report) (*report.VerdictReply, error) {
	n := 0
	var errs []error
	for _, fr := range rep.Files {
		if fr.Err != nil {
			errs = append(errs, fr.Err)
		} else if fr.GradePath != "" {
			n++
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("the verdict is in %s, and %d of %d output files carrying the answer could not be rewritten (grade -w applies it): %w",
			verdict.PathIn(a.Dir), len(errs), len(a.Files), err)
	}
	v := a.Verdict
	g := -1
	if a.Grader != nil {
		g = 0
		if *a.Grader {
			g = 1
		}
	}
	rv := &report.Review{By: v.By, At: v.At.UTC().Format(time.RFC3339), Reason: v.Reason, Grader: g}
	grade := 0
	if v.Right {
		grade = 1
	}
	return &report.VerdictReply{Grade: grade, Review: rv, Files: n}, nil
}

// oneLine is s on one line, cut to 200 characters: what a refusal quotes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
