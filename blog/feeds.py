from django.contrib.syndication.views import Feed


class LatestNotesRss(Feed):
    title = link = description = "todo"

    def items(self):
        return []


LatestNotesAtom = TagNotesRss = TagNotesAtom = SeriesNotesRss = SeriesNotesAtom = LatestNotesRss
LanguageNotesRss = LanguageNotesAtom = LatestNotesRss
