"""Public HTML pages of the site (event, venue and term pages) and their API discovery headers."""
