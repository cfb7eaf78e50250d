package templates

// ListSQLForTest is the page query of a listing filtered by name, with its
// arguments.
func ListSQLForTest(name string) (string, []any) {
	return listSQL(ListQuery{Name: name}.normalized())
}
