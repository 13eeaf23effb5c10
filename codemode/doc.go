// Package codemode is DataBench's code mode, exact: the model writes a
// pandas expression (or function), it is executed on the question's table,
// and the answer is what databench_eval's competition baseline
// (examples/competition_baseline.py) would have saved for it.
//
// The steps, each a function:
//
//	prompt := codemode.Prompt(question, columns)           // the baseline's prompt, word for word
//	code, err := codemode.Extract(rule, prompt, completion) // the answer(df) function to run
//	if err != nil { o := codemode.Failure(err) }            // "__CODE_ERROR__: list index out of range"
//	prog := codemode.Program(code, codemode.CSVLoader("x.csv"))
//	// run prog with Debian's Python and pandas (in the sandbox), then
//	o, err := codemode.ParseOutput(output)                  // o.Answer is the predictions.txt line
//
// Failure and ParseOutput both give an Outcome: the answer string graders
// read (the predictions.txt line) and, when the code raised or none could
// be extracted, Python's exception class and message.
//
// # Prompt
//
// Prompt is example_generator's text: "You are a pandas code generator...",
// the example function, and df.columns = [...] written as Python's repr of
// list(df.columns), which the baseline takes from the dataset's
// sample.parquet. It ends with "    return" for the model to complete.
//
// # Extraction
//
// Rule Baseline is example_postprocess's: llama-cli echoes the prompt, so
// the rule reads prompt + completion, takes the text after the second
// "return", its first line, strips it (Python's whitespace), and removes
// "[end of text]". Fewer than two "return"s is the original's IndexError,
// "list index out of range". Rule Lenient reads chat replies: a fenced
// block, a return line, a whole def answer function, or a bare
// expression (see Extract). Either way the code is the source of a
// function answer(df); for an expression EXPR it is exactly
// "def answer(df):\n    return EXPR".
//
// # The program
//
// Program is a self-contained Python program (Python 3, numpy, pandas; no
// file of its own) that loads the table with a Loader, execs "\n" + code +
// "\nans = answer(df)" with df, pd and np, converts as the original does
// (Series: tolist(); DataFrame: first column's tolist(); a value whose
// str() has a newline: ans.split("\n")[0], an AttributeError for
// non-strings) and reports str(ans).replace("\n", " ") (Runner.save_responses)
// or the exception as "__CODE_ERROR__: {e}" with Python's own message, on
// one marked line that ParseOutput reads. What the model's code prints is
// discarded. It runs as a script or as a cell of the sandbox's persistent
// interpreter and leaves no names behind.
//
// Two deliberate differences from the original, neither reachable by the
// baseline's runs: a table that fails to load is an error of the run
// (ParseOutput returns it; the original would score every question
// "__CODE_ERROR__"), and SystemExit or KeyboardInterrupt raised by the code
// is reported like any exception (the original's run would stop).
//
// The Loader says how the table becomes df: CSVLoader uses pd.read_csv; a
// parquet table, which Debian 12's pandas cannot read without pyarrow, is
// handed over by Go as a file plus Python loader source (Loader.Source,
// Loader.Expr), embedded in the program.
package codemode
