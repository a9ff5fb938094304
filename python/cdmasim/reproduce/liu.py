TITLE = "liu"
CITATION = ""
PENDING = ["all"]


def reproduce(ctx):
    pass
