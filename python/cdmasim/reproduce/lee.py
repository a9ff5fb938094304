TITLE = "lee"
CITATION = ""
PENDING = ["all"]


def reproduce(ctx):
    pass
