package cli

import (
	"fmt"
	"strings"
)

// byPrefix is the one ID of ids that arg begins, as git takes a commit's
// first letters: jobs and watches are listed by IDs of 36 and 16
// characters, and a person types back the first few. what names the
// things ("job", "watch"), list the command that lists them, and listIDs
// reads their IDs (once arg looks like the start of one).
func byPrefix(arg, what, list string, listIDs func() ([]string, error)) (string, error) {
	if len(arg) < 4 || strings.Trim(arg, "0123456789abcdefABCDEF-") != "" {
		return "", usagef("%s ID %q: a whole ID or its first 4 or more characters (%s lists them)", what, arg, list)
	}
	ids, err := listIDs()
	if err != nil {
		return "", fromGateway(err)
	}
	var found []string
	for _, id := range ids {
		if strings.HasPrefix(strings.ToLower(id), strings.ToLower(arg)) {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", targetError{fmt.Errorf("no %s whose ID starts with %s in this workspace (%s lists the IDs)", what, arg, list)}
	}
	return "", usagef("%s ID %q: %d %ss' IDs start so (%s); give more of it", what, arg, len(found), what, strings.Join(found, ", "))
}
