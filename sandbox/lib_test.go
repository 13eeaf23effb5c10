package sandbox

import (
	"testing"
)

// TestLibraries: what DABench and DSBench questions use works in the
// sandbox: scipy's tests, sklearn's models, workbooks through openpyxl,
// worker processes (which need /dev/shm).
func TestLibraries(t *testing.T) {
	s := mustOpen(t, newPool(t, Config{}))
	for _, tc := range []struct{ code, want string }{
		// r = 4/5 by hand; with 2 degrees of freedom the two-sided p-value is
		// 1 - t/sqrt(t^2+2) = 1 - r = 0.2.
		{"from scipy import stats\nr, p = stats.pearsonr([1, 2, 3, 4], [1, 3, 2, 4])\nprint(round(r, 10), round(p, 10))", "0.8 0.2\n"},
		{"from sklearn.linear_model import LinearRegression\nm = LinearRegression().fit([[1], [2], [3]], [2, 4, 6])\nprint(round(m.coef_[0], 6), round(m.intercept_, 6))", "2.0 0.0\n"},
		{"import pandas as pd\npd.DataFrame({'a': [1, 2]}).to_excel('w.xlsx', index=False)\nprint(pd.read_excel('w.xlsx').a.sum())", "3\n"},
		{"from multiprocessing import Pool\nwith Pool(2) as pool:\n    print(pool.map(abs, [-1, -2]))", "[1, 2]\n"},
		{"from joblib import Parallel, delayed\nprint(Parallel(n_jobs=2)(delayed(abs)(i) for i in [-3, -4]))", "[3, 4]\n"},
	} {
		if r := mustExec(t, s, tc.code); r.Output != tc.want {
			t.Errorf("%s\ngot  %q\nwant %q", tc.code, r.Output, tc.want)
		}
	}
}
