package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// Quiet hours (accounts/quiet.go) on the settings page: the form sets
// them, as the API's PUT /v1/me/quiet-hours does; another turns them off.

// quietWords are what the form says of a time the accounts refused, by
// the field the refusal names.
var quietWords = map[string]string{
	"start": "Enter when your quiet hours start, such as 22:00.",
	"end":   "Enter when your quiet hours end, such as 07:00: another time than the start.",
}

// quietForm fills in f the times of the user's quiet hours q where f has
// none (the page shown afresh).
func quietForm(f form, q accounts.Quiet) form {
	for name, v := range map[string]string{"quiet_start": q.StartText(), "quiet_end": q.EndText()} {
		if _, ok := f.Values[name]; !ok {
			f.Values[name] = v
		}
	}
	return f
}

// changeQuietHours gives the user quiet hours from the form's times.
func (p *Pages) changeQuietHours(c *gin.Context) error {
	f := formOf(c, "quiet_start", "quiet_end")
	_, err := p.acc.SetQuietHours(c.Request.Context(), account(c).ID, f.Values["quiet_start"], f.Values["quiet_end"])
	var re *refusal.Error
	if errors.As(err, &re) && re.Kind == refusal.Invalid {
		name, _, _ := strings.Cut(re.Detail, ":")
		if msg, ok := quietWords[name]; ok {
			return p.settingsAgain(c, "quiet", http.StatusUnprocessableEntity, "", f.invalid("quiet_"+name, msg))
		}
	}
	if err != nil {
		return p.settingsFailed(c, "quiet", err, f)
	}
	redirect(c, "/settings?done=quiet#quiet")
	return nil
}

// quietHoursOff takes the user's quiet hours away.
func (p *Pages) quietHoursOff(c *gin.Context) error {
	if _, err := p.acc.QuietHoursOff(c.Request.Context(), account(c).ID); err != nil {
		return err
	}
	redirect(c, "/settings?done=quiet-off#quiet")
	return nil
}
