"""Media: the file storage seam (the local uploads folder by default), image work, and image attachments."""
