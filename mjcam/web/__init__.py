"""The table web app (`mjcam serve`)."""
