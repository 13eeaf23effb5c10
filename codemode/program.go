package codemode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/table"
)

// Loader is Python that gives the DataFrame a program runs on: Source
// (statements, may be empty) runs first in a fresh namespace holding pd
// and np, then Expr is evaluated in that namespace. A hand-over module
// (such as the table package's Python loader for parquet tables, which
// Debian's pandas cannot read without pyarrow) goes in Source and its call
// in Expr; both are embedded in the program as text, so the sandbox needs
// no importable module.
type Loader struct {
	Source string
	Expr   string
}

// CSVLoader reads path with pd.read_csv and its defaults.
func CSVLoader(path string) Loader {
	return Loader{Expr: "pd.read_csv(" + pyRepr(path) + ")"}
}

// TableLoader reads path with package table's Python loader (table.LoaderPy,
// embedded): a parquet table from its hand-over file beside it, which
// table.WriteHandoverDir writes (give the sandbox both files), as the
// DataFrame pyarrow's to_pandas() gives; any other table with pandas' own
// reader (.csv: pd.read_csv, .tsv, .jsonl).
func TableLoader(path string) Loader {
	return Loader{Source: table.LoaderPy, Expr: "load(" + pyRepr(path) + ")"}
}

// marker starts the one line through which a program reports; Parse reads
// the last such line, so whatever the model's code writes before it does
// not matter.
const marker = "__EVALMD_CODE_MODE__"

// programTemplate is what Program fills in. It runs example_postprocess's
// steps in order, catching what it catches: exec of "\n" + code +
// "\nans = answer(df)" in a namespace holding only df, pd and np (the
// leading newline keeps Python's line numbers in messages the original's);
// a Series becomes tolist(), a DataFrame its first column's tolist(); when
// str(ans) has a newline, ans.split("\n")[0] (an AttributeError for
// anything but a string, as in the original); and the answer string is
// Runner.save_responses' str(ans).replace("\n", " "). Any exception gives
// its class and str(e). Output the code prints is discarded. A table that
// cannot be loaded is reported apart (load_error): it is no fault of the
// model. Everything lives in one function deleted at the end, so the
// program can run as a cell of a persistent interpreter and leave nothing.
const programTemplate = `def _evalmd_code_mode():
    import contextlib, io, json, sys
    import numpy as np
    import pandas as pd

    out = sys.stdout

    def report(**fields):
        out.write("\n" + MARKER + " " + json.dumps(fields, ensure_ascii=True) + "\n")
        out.flush()

    def message(e):
        try:
            return str(e)
        except BaseException:
            return object.__repr__(e)

    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            env = {"pd": pd, "np": np}
            exec(LOADER_SOURCE, env)
            df = eval(LOADER_EXPR, env)
    except BaseException as e:
        report(load_error=type(e).__name__ + ": " + message(e))
        return
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            local_vars = {"df": df, "pd": pd, "np": np}
            exec("\n" + CODE + "\nans = answer(df)", local_vars)
            ans = local_vars["ans"]
            if isinstance(ans, pd.Series):
                ans = ans.tolist()
            elif isinstance(ans, pd.DataFrame):
                ans = ans.iloc[:, 0].tolist()
            ans = ans.split("\n")[0] if "\n" in str(ans) else ans
            text = str(ans).replace("\n", " ")
    except BaseException as e:
        report(error=message(e), type=type(e).__name__)
        return
    report(answer=text)


_evalmd_code_mode()
del _evalmd_code_mode
`

// Program returns the Python program that runs code (an answer(df)
// function's source, as Extract gives it) on the table load gives, and
// prints one result line for ParseOutput. It needs only Python 3, numpy
// and pandas; run it as a script or as a cell of the sandbox's
// interpreter. Its output is one line as long as the answer string (JSON,
// ASCII): the sandbox's output cap must allow for the answers expected.
func Program(code string, load Loader) string {
	return strings.NewReplacer(
		"MARKER", pyRepr(marker),
		"LOADER_SOURCE", pyRepr(validUTF8(load.Source)),
		"LOADER_EXPR", pyRepr(validUTF8(load.Expr)),
		"CODE", pyRepr(validUTF8(code)),
	).Replace(programTemplate)
}

// Outcome is what running a program (or failing to extract code) gave.
type Outcome struct {
	// Answer is the line Runner.save_responses writes to predictions.txt:
	// str(ans).replace("\n", " "), or "__CODE_ERROR__: {e}" with its
	// newlines made spaces. Graders read it.
	Answer string
	// Error is Python's message, str(e), when the code raised or could not
	// be extracted; it may be empty (a bare MemoryError).
	Error string
	// ErrorType is the exception's class ("KeyError", "SyntaxError"; an
	// "IndexError" or "ExtractError" for an extraction failure), "" on
	// success.
	ErrorType string
}

// Failed reports whether the code raised or could not be extracted.
func (o Outcome) Failed() bool { return o.ErrorType != "" }

// ErrorAnswer is the answer string of a failure with message msg, as
// example_postprocess returns it and save_responses writes it.
func ErrorAnswer(msg string) string {
	return strings.ReplaceAll("__CODE_ERROR__: "+msg, "\n", " ")
}

// Failure is the Outcome of an extraction that failed: the error string
// the original would have written.
func Failure(err error) Outcome {
	typ := "ExtractError"
	if e, ok := errors.AsType[*extractError](err); ok {
		typ = e.Type
	}
	return Outcome{Answer: ErrorAnswer(err.Error()), Error: err.Error(), ErrorType: typ}
}

// errNoResult is wrapped by ParseOutput when the output holds no whole
// result line: the program was stopped (a limit), its output was cut
// (raise the output cap), or it is not a program's output.
var errNoResult = errors.New("no result line in the program's output")

// ParseOutput reads a program's output (stdout, or stdout and stderr
// together) into its Outcome. A table that could not be loaded, or output
// without a whole result line, is an error: no answer was made.
func ParseOutput(out string) (Outcome, error) {
	i := strings.LastIndex(out, "\n"+marker+" ")
	if i < 0 {
		return Outcome{}, fmt.Errorf("code mode: %w (%d bytes)", errNoResult, len(out))
	}
	line, _, _ := strings.Cut(out[i+len(marker)+2:], "\n")
	var r struct {
		Answer    *string `json:"answer"`
		Error     *string `json:"error"`
		Type      string  `json:"type"`
		LoadError *string `json:"load_error"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return Outcome{}, fmt.Errorf("code mode: %w: result line cut or malformed (%d bytes; a longer answer than the sandbox's output cap?): %v", errNoResult, len(line), err)
	}
	switch {
	case r.LoadError != nil:
		return Outcome{}, fmt.Errorf("code mode: loading the table: %s", *r.LoadError)
	case r.Error != nil && r.Type != "":
		return Outcome{Answer: ErrorAnswer(*r.Error), Error: *r.Error, ErrorType: r.Type}, nil
	case r.Answer != nil:
		return Outcome{Answer: *r.Answer}, nil
	}
	return Outcome{}, fmt.Errorf("code mode: %w: result line without answer or error: %.200s", errNoResult, line)
}
