package junit

import (
	"strings"
	"testing"
)

const valid = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="m" package="evalmd" id="0" timestamp="2026-01-02T03:04:05" hostname="localhost" tests="3" failures="1" errors="1" skipped="0" time="1.5">
    <properties><property name="k" value=""></property></properties>
    <testcase name="Q1" classname="s" time="0"></testcase>
    <testcase name="Q2" classname="s" time="0"><failure message="graded wrong" type="wrong">ground truth: 4</failure></testcase>
    <testcase name="Q3" classname="s" time="0.25"><error type="error"></error></testcase>
    <system-out></system-out>
    <system-err></system-err>
  </testsuite>
</testsuites>
`

// The check passes a document the schema accepts and fails each thing the
// schema (or the counts) refuses, naming it.
func TestCheck(t *testing.T) {
	if err := Check([]byte(valid)); err != nil {
		t.Fatalf("valid document: %v", err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"no timestamp", `timestamp="2026-01-02T03:04:05" `, "", "lacks the required attribute timestamp"},
		{"a zone", `T03:04:05"`, `T03:04:05Z"`, "not YYYY-MM-DDThh:mm:ss"},
		{"no package", `package="evalmd" `, "", "lacks the required attribute package"},
		{"an empty name", `name="m"`, `name=" "`, "an empty token"},
		{"a bad count", `tests="3"`, `tests="three"`, "not an xs:int"},
		{"a count not the cases'", `failures="1"`, `failures="2"`, "failures=\"2\"> but it holds 1"},
		{"a bad time", `time="0.25"`, `time="1s"`, "not an xs:decimal"},
		{"an undeclared attribute", `classname="s" time="0">`, `classname="s" time="0" status="ok">`, "does not declare"},
		{"attributes on testsuites", "<testsuites>", `<testsuites tests="3">`, "declares none"},
		{"no type", `<error type="error">`, "<error>", "lacks the required attribute type"},
		{"two results", `<error type="error"></error>`, `<error type="error"></error><skipped/>`, "holds 2 elements"},
		{"no system-err", "<system-err></system-err>", "", "want properties, testcase..., system-out, system-err"},
		{"no properties", `<properties><property name="k" value=""></property></properties>`, "", "want properties"},
		{"a property without a value", `value=""`, "", "lacks the required attribute value"},
		{"another root", "testsuites>", "tests>", "root element"},
		{"not XML", "<system-out></system-out>", "<system-out>\x01</system-out>", "illegal character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.ReplaceAll(valid, tc.old, tc.new)
			if doc == valid {
				t.Fatalf("%q is not in the document", tc.old)
			}
			if err := Check([]byte(doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check: %v; want an error with %q", err, tc.want)
			}
		})
	}
}
