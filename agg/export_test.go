package agg

// Golden is golden, for the tests of package agg_test.
var Golden = golden
