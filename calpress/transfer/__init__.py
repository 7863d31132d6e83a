"""Moving a site in and out: WordPress export files (WXR)."""
