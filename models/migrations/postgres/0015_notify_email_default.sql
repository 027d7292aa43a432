-- 0015: email notifications are on unless the user turned them off. An
-- account registered without an email address used to get them off, so
-- that adding an address later left them off; such accounts get the
-- default that registration now gives.

UPDATE users SET notify_email = TRUE WHERE email = '' AND notify_email = FALSE;
