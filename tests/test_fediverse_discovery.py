"""Finding the site on the fediverse: WebFinger for each actor, NodeInfo, the actors' documents as
Mastodon reads them (docs.joinmastodon.org/spec/activitypub, spec/webfinger), the rel="me" and
alternate links in the pages and feeds, and all of it 404 while the fediverse is off."""

import pytest
from bs4 import BeautifulSoup
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.urls import reverse

from blog.fediverse.keys import new_key_pair
from blog.models import ActorKey, DomainBlock, Follower, Reaction, SiteSettings
from blog.ops.backup.portable import dumped_models
from tests.factories import make_draft, make_note

SITE = "https://notes.example"
ACTORS = ["blog", "zh", "en"]
AP = "application/activity+json"
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def actor_pems():
    """One key pair per actor, made once for the module (2048-bit keys take a while)."""
    return {name: new_key_pair() for name in ACTORS}


@pytest.fixture(autouse=True)
def _fediverse(settings, db, actor_pems):
    settings.SITE_URL = SITE
    settings.BIJI_FEDIVERSE = True
    settings.BIJI_FEDIVERSE_ACTORS = ACTORS
    for name, (private_pem, public_pem) in actor_pems.items():
        ActorKey.objects.create(actor=name, private_pem=private_pem, public_pem=public_pem)


def webfinger(client, resource):
    return client.get("/.well-known/webfinger", {"resource": resource})


@pytest.mark.parametrize("name", ACTORS)
def test_webfinger_finds_each_actor_by_its_handle(client, name):
    response = webfinger(client, f"acct:{name}@notes.example")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/jrd+json")
    jrd = response.json()
    assert jrd["subject"] == f"acct:{name}@notes.example"
    [self_link] = [link for link in jrd["links"] if link["rel"] == "self"]
    assert self_link == {
        "rel": "self",
        "type": "application/activity+json",
        "href": f"{SITE}/ap/actors/{name}",
    }
    # Also found by its id, as some servers ask.
    assert webfinger(client, f"{SITE}/ap/actors/{name}").json()["subject"] == jrd["subject"]


def test_webfinger_compares_the_host_with_its_port(client, settings):
    settings.SITE_URL = "https://localhost:8443"
    assert webfinger(client, "acct:en@localhost:8443").json()["links"][0]["href"] == (
        "https://localhost:8443/ap/actors/en"
    )
    assert webfinger(client, "acct:en@localhost").status_code == 404


@pytest.mark.parametrize(
    "resource", ["acct:nobody@notes.example", "acct:en@elsewhere.example", "acct:en", "en"]
)
def test_webfinger_does_not_know_other_accounts(client, resource):
    response = webfinger(client, resource)
    assert response.status_code == 404
    assert response.json()["error"]


def test_webfinger_without_a_resource_is_a_bad_request(client):
    assert client.get("/.well-known/webfinger").status_code == 400


def test_actor_names_are_configurable(client, settings):
    settings.BIJI_FEDIVERSE_ACTORS = ["notes", "zh", "en"]
    assert webfinger(client, "acct:notes@notes.example").status_code == 200
    assert webfinger(client, "acct:blog@notes.example").status_code == 404
    assert client.get("/ap/actors/blog", HTTP_ACCEPT=AP).status_code == 404
    document = client.get("/ap/actors/notes", HTTP_ACCEPT=AP).json()
    assert document["preferredUsername"] == "notes"


def test_nodeinfo_says_biji_speaks_activitypub(client):
    make_note(title="Published")
    make_draft(title="Draft")
    links = client.get("/.well-known/nodeinfo").json()["links"]
    rels = {link["rel"]: link["href"] for link in links}
    assert rels["http://nodeinfo.diaspora.software/ns/schema/2.1"] == f"{SITE}/nodeinfo/2.1"
    assert rels["http://nodeinfo.diaspora.software/ns/schema/2.0"] == f"{SITE}/nodeinfo/2.0"
    for version in ("2.1", "2.0"):
        info = client.get(f"/nodeinfo/{version}").json()
        assert info["version"] == version
        assert info["software"]["name"] == "biji"
        assert info["protocols"] == ["activitypub"]
        assert info["openRegistrations"] is False
        assert info["usage"]["localPosts"] == 1  # the draft is not counted
    assert client.get("/nodeinfo/9.9").status_code == 404


def test_the_english_actor_is_a_mastodon_profile(client):
    site = SiteSettings.load()
    site.title, site.description, site.card_en = "笔记 biji", "GPU <notes>", "cards/home-en.png"
    site.save()
    response = client.get("/ap/actors/en", HTTP_ACCEPT="application/activity+json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/activity+json")
    actor = response.json()
    me = f"{SITE}/ap/actors/en"
    assert actor["id"] == me
    assert actor["type"] == "Service"  # shown as an automated account
    assert actor["preferredUsername"] == "en"  # must match the acct: name
    assert actor["name"] == "笔记 biji · English"
    assert actor["summary"] == "<p>GPU &lt;notes&gt;</p>"
    assert actor["url"] == f"{SITE}/en/"
    assert actor["inbox"] == f"{me}/inbox"
    assert actor["outbox"] == f"{me}/outbox"
    assert actor["followers"] == f"{me}/followers"
    assert actor["endpoints"]["sharedInbox"] == f"{SITE}/ap/inbox"
    assert actor["icon"]["url"].startswith(SITE) and actor["icon"]["url"].endswith("home-en.png")
    assert actor["icon"]["mediaType"] == "image/png"
    [website] = actor["attachment"]
    link = BeautifulSoup(website["value"], "html.parser").a
    assert link["href"] == f"{SITE}/en/" and link["rel"] == ["me"]
    key = actor["publicKey"]
    assert key["id"] == f"{me}#main-key" and key["owner"] == me
    public = serialization.load_pem_public_key(key["publicKeyPem"].encode())
    assert isinstance(public, rsa.RSAPublicKey) and public.key_size == 2048
    # The outbox and the followers collection are there to be read too.
    for url in (actor["outbox"], actor["followers"]):
        collection = client.get(url.removeprefix(SITE)).json()
        assert collection["type"] == "OrderedCollection" and collection["totalItems"] == 0


def test_the_chinese_and_the_site_actor_speak_chinese(client):
    assert client.get("/ap/actors/zh", HTTP_ACCEPT=AP).json()["url"] == f"{SITE}/"
    assert client.get("/ap/actors/zh", HTTP_ACCEPT=AP).json()["name"].endswith(" · 中文")
    site_actor = client.get("/ap/actors/blog", HTTP_ACCEPT=AP).json()
    assert site_actor["url"] == f"{SITE}/"
    assert site_actor["attachment"][0]["name"] == "网站"


def test_an_actor_keeps_its_key(client):
    ActorKey.objects.all().delete()
    first = client.get("/ap/actors/en", HTTP_ACCEPT=AP).json()["publicKey"]["publicKeyPem"]
    assert client.get("/ap/actors/en", HTTP_ACCEPT=AP).json()["publicKey"]["publicKeyPem"] == first
    assert ActorKey.objects.get(actor="en").public_pem == first


def test_keys_and_followers_are_kept_in_backups():
    """A restored site must sign with the same keys (peers keep them for good) and still know
    its followers: manage.py backup's portable dump holds their rows."""
    assert {ActorKey, Follower, DomainBlock, Reaction} <= set(dumped_models())


def test_a_browser_asking_for_an_actor_goes_to_its_home_page(client):
    response = client.get("/ap/actors/en", HTTP_ACCEPT="text/html,application/xhtml+xml")
    assert response.status_code == 302
    assert response["Location"] == f"{SITE}/en/"
    assert "Accept" in response["Vary"]


@pytest.mark.parametrize("name", ACTORS)
def test_mastodon_can_verify_each_actors_website_field(client, name):
    """As Mastodon's VerifyLinkService does: fetch the field's page as HTML; its one rel="me"
    link, asked for with a HEAD that follows no redirect, must lead back to the actor's url."""
    actor = client.get(f"/ap/actors/{name}", HTTP_ACCEPT=AP).json()
    field_link = BeautifulSoup(actor["attachment"][0]["value"], "html.parser").a["href"]
    page = client.get(field_link.removeprefix(SITE), HTTP_ACCEPT="text/html")
    links = BeautifulSoup(page.content, "html.parser").select('[rel~="me"]')
    assert len(links) == 1
    answer = client.head(links[0]["href"].removeprefix(SITE))
    assert answer.status_code == 302
    assert answer["Location"] == actor["url"] == field_link


def test_a_published_note_is_an_article_and_a_draft_is_not_there(client):
    note = make_note(title="Warp scheduling")
    article = client.get(f"/ap/notes/{note.pk}", HTTP_ACCEPT=AP).json()
    assert article["id"] == f"{SITE}/ap/notes/{note.pk}"
    assert article["type"] == "Article"
    assert client.get(f"/ap/notes/{make_draft().pk}", HTTP_ACCEPT=AP).status_code == 404
    assert client.get("/ap/notes/99999999999999999999", HTTP_ACCEPT=AP).status_code == 404


@pytest.mark.parametrize(("path", "actor"), [("/", "zh"), ("/en/", "en"), ("/en/archive/", "en")])
def test_pages_name_the_actor_of_their_language(client, path, actor):
    head = BeautifulSoup(client.get(path).content, "html.parser").head
    expected = f"{SITE}/ap/actors/{actor}"
    # One rel="me" link only: Mastodon's check follows a single link's redirect back home.
    assert [link["href"] for link in head.select('link[rel~="me"]')] == [expected]
    alternate = head.select_one('link[rel="alternate"][type="application/activity+json"]')
    assert alternate["href"] == expected


def test_feeds_name_their_actor(client):
    language_feed = client.get(reverse("feeds:language-atom", kwargs={"language": "en"}))
    links = BeautifulSoup(language_feed.content, "xml").find_all("link", rel="me")
    assert [link["href"] for link in links] == [f"{SITE}/ap/actors/en"]
    mixed_feed = BeautifulSoup(client.get(reverse("feeds:all-rss")).content, "xml")
    links = mixed_feed.find_all("link", rel="alternate", type="application/activity+json")
    assert [link["href"] for link in links] == [f"{SITE}/ap/actors/blog"]


FEDIVERSE_URLS = [
    "/.well-known/webfinger?resource=acct:en@notes.example",
    "/.well-known/nodeinfo",
    "/nodeinfo/2.1",
    "/ap/actors/en",
    "/ap/actors/en/outbox",
    "/ap/actors/en/followers",
]


def test_off_everything_is_a_404_and_no_page_links_to_it(client, settings):
    settings.BIJI_FEDIVERSE = False
    for url in FEDIVERSE_URLS:
        assert client.get(url).status_code == 404, url
    for url in ("/ap/inbox", "/ap/actors/en/inbox"):
        assert client.post(url, b"{}", content_type="application/activity+json").status_code == 404
    page = client.get("/en/").content.decode()
    assert "/ap/actors/" not in page
    assert "/ap/actors/" not in client.get(reverse("feeds:all-atom")).content.decode()
