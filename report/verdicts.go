package report

import (
	_ "embed"
	"fmt"
	"html"
)

// verdicts.js lets a person override an answer's grade on a served page.
//
//go:embed verdicts.js
var verdictsJS string

// TokenHeader is the header each verdict a page sends carries its
// server's token (Verdicts.Token) in: a header, which no page of another
// origin can set on a request to the server without its leave, where a
// cookie would go with any request the browser makes.
const TokenHeader = "X-Evalmd-Token"

// VerdictRequest is the JSON a page sends to Verdicts.URL: a person's
// verdict on one answer, named as the page knows it.
type VerdictRequest struct {
	File    string `json:"file"`    // Answer.File: the output file, relative to the folder served
	Index   int    `json:"index"`   // Ref.Index: the question in it, from 0
	Answer  string `json:"answer"`  // Ref.Answer: the digest of the text graded, as the page saw it
	Verdict string `json:"verdict"` // "right", "wrong" or "accept"
	Reason  string `json:"reason,omitempty"`
	By      string `json:"by,omitempty"` // the reviewer; "": the server's Verdicts.By
}

// VerdictReply is the server's answer: the answer's grade and review as
// the page shows them, or, with a status other than 200, Error (one line).
type VerdictReply struct {
	Error  string  `json:"error,omitempty"`
	Grade  int     `json:"g"`
	Review *Review `json:"rv,omitempty"`
	// Files counts the output files rewritten (every one carrying the
	// answer).
	Files int `json:"files"`
	// Sheet, for "accept", is the sheet the answer was added to.
	Sheet string `json:"sheet,omitempty"`
}

// verdictsScript is the script element of verdicts.js with what it needs
// of its server.
func verdictsScript(v *Verdicts) string {
	accept := ""
	if v.Accept {
		accept = "1"
	}
	return fmt.Sprintf("<script data-url=\"%s\" data-token=\"%s\" data-by=\"%s\" data-accept=\"%s\" data-header=\"%s\">%s</script>\n",
		html.EscapeString(v.URL), html.EscapeString(v.Token), html.EscapeString(v.By), accept, TokenHeader, verdictsJS)
}
