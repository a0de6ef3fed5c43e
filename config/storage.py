"""Static files with content-hashed names once `collectstatic` has run, so browsers keep them for a year
(WhiteNoise marks hashed files immutable) and a deploy that changes one changes its name; before it has run
(a fresh clone, the tests), the plain names, served by the finders."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFiles(CompressedManifestStaticFilesStorage):
    manifest_strict = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._uncollected = set()

    def stored_name(self, name):
        if name in self._uncollected:
            return name
        try:
            return super().stored_name(name)
        except ValueError:  # not collected: no hashed copy exists, the file is served under its own name
            self._uncollected.add(name)
            return name
