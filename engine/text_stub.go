package engine

// Placeholder texts until text.go (generated card texts) lands; text.go
// replaces this file.

// OpText describes one operation.
func OpText(op Op) string { return string(op.Verb) }

// OpsText describes a list of operations.
func OpsText(ops []Op) string {
	s := ""
	for i, op := range ops {
		if i > 0 {
			s += ", then "
		}
		s += OpText(op)
	}
	return s
}

// ConditionText describes a condition.
func ConditionText(c Condition) string { return "its requirements" }
