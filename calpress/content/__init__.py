"""Content items: definitions of types and statuses, and rendering of their fields."""
