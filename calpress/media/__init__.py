"""Media: uploaded files (local uploads folder) and image attachments."""
