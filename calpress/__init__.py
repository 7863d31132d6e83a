"""calpress: a fast Python service speaking the calendar-plus-CMS REST interface."""

__version__ = "0.1.0"
