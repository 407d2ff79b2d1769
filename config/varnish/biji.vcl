# biji behind Varnish 7 with varnish-modules' xkey (Debian: varnish, varnish-modules).
# docs/deployment.md, "An edge cache", explains each rule. scripts/start-varnish.sh serves it
# with the backend's address put in for BACKEND_HOST and BACKEND_PORT.
vcl 4.1;

import std;
import xkey;

backend biji {
    .host = "BACKEND_HOST";
    .port = "BACKEND_PORT";
    .connect_timeout = 2s;
    .first_byte_timeout = 60s;
    # biji's /healthz answers 200 while its database does: a page past its TTL is then never
    # served stale; while it does not, kept pages are (grace, below).
    .probe = {
        .url = "/healthz";
        .interval = 2s;
        .timeout = 1s;
        .window = 3;
        .threshold = 2;
        .initial = 2;  # healthy from the start: the first pages need no wait for two probes
    }
}

# Who may purge: biji's workers. Add the app hosts' addresses.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Not allowed to purge"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "Name the keys in xkey-purge"));
        }
        set req.http.n-gone = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Purged " + req.http.n-gone + " objects"));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # A signed-in author (biji's marker cookie, or a session) sees drafts and previews: never
    # from the edge, and never stored there.
    if (req.http.Authorization || req.http.Cookie ~ "(^|;\s*)(biji_author|sessionid)=") {
        return (pass);
    }
    # Readers' cookies (analytics, a stale csrftoken) change no public page: dropped, so they
    # neither split the cache nor reach a page that could be kept.
    unset req.http.Cookie;
    # Past its TTL, a page is fetched again while biji is healthy; kept pages are served only
    # while the probe finds it down.
    if (std.healthy(req.backend_hint)) {
        set req.grace = 0s;
    }
    return (hash);
}

sub vcl_backend_response {
    # Kept: biji's public pages (they name their parts in xkey, so a purge reaches them) and
    # static files (whitenoise: a year for hashed names, a minute for the others). Anything
    # else goes through unkept (hit-for-miss), however its headers read.
    if (beresp.http.xkey) {
        set beresp.grace = 24h;
    } elsif (bereq.url ~ "^/static/" && beresp.http.Cache-Control ~ "public") {
        set beresp.grace = 24h;
    } else {
        set beresp.ttl = 120s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # Varnish's built-in rules follow: a Set-Cookie, private, no-store or no-cache is never kept.
}

sub vcl_deliver {
    # The keys are the edge's business.
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
    unset resp.http.Cache-Tag;
    if (obj.uncacheable) {
        set resp.http.X-Edge = "pass";
    } elsif (obj.hits > 0) {
        set resp.http.X-Edge = "hit";
    } else {
        set resp.http.X-Edge = "miss";
    }
}
