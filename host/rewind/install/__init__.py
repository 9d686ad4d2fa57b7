"""Installing Rewind on this computer: where each browser looks for native hosts
(`browsers`), registering the host there (`register`), and `rewind setup`'s steps (`steps`).

Nothing here runs while Rewind serves a browser: these modules write files outside the
data folder (launcher, host manifests) only when a person sets up or removes Rewind.
"""
