package codemode

import "strings"

// promptTemplate is the prompt of databench_eval's competition baseline
// (examples/competition_baseline.py, example_generator), word for word:
// {question} is the question and {columns} is list(df.columns) of the
// table's sample as Python prints it. It starts with a newline and ends
// with "    return", which the model completes.
const promptTemplate = `
You are a pandas code generator. Your goal is to complete the function provided.
* You must not write any more code apart from that.
* You only have access to pandas and numpy.
* Pay attention to the type formatting .
* You cannot read files from disk.
* The answer should be short and concise, in the format I specify.
* DO NOT do anything else other than filling the function provided.
* Answer in one of the following formats, depending on the question
    1. True/False (do not answer with np.True_ or np.False_, but rather True or False)
    2. with a value from the dataframe, (category/number)
    3. with a list of values (either categories or numbers)

import pandas as pd
import numpy as np

# This is an example
def example(df: pd.DataFrame):
    """Returns the answer to the question: How many rows are there in the dataframe? """
    df.columns = {columns}
    return df.shape[0]

# This is the question you have to answer
def answer(df: pd.DataFrame):
    """Returns the answer to the question: {question} """
    df.columns = {columns}
    return`

// Prompt returns DataBench's default code-mode prompt for a question on a
// table with the given column names (the baseline reads them from the
// dataset's sample.parquet; the full table has the same columns).
func Prompt(question string, columns []string) string {
	return strings.NewReplacer("{columns}", pyListRepr(columns), "{question}", question).Replace(promptTemplate)
}
