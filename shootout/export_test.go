package shootout

// DeletePrefix is deletePrefix, for the tests.
var DeletePrefix = deletePrefix
