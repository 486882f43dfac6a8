package runconfig

// MustFromMap is FromMap for tests and fixtures: it panics on a value the
// setting does not take.
func MustFromMap(m map[string]string) Settings {
	s, err := FromMap(m)
	if err != nil {
		panic(err)
	}
	return s
}
