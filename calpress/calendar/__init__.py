"""The calendar domain: events, venues, organizers, event terms, dates and time zones."""
