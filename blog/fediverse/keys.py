"""Each actor's RSA key pair (2048 bits), made the first time it is needed and kept in the
database (:class:`blog.models.ActorKey`, which says why unencrypted), so it survives restarts,
backups and restores: peers keep a key for good (bovine never fetches it again)."""

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.db import IntegrityError, transaction

from blog.fediverse.ids import key_id
from blog.models import ActorKey

KEY_BITS = 2048


def new_key_pair() -> tuple[str, str]:
    """A fresh (private PEM, public PEM): PKCS#8 and SubjectPublicKeyInfo, as Mastodon reads."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    private_pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode("ascii")
    )
    return private_pem, public_pem


def actor_key(name) -> tuple[str, str, str]:
    """(key id, private PEM, public PEM) of actor ``name``, made on first use."""
    row = ActorKey.objects.filter(actor=name).first()
    if row is None:
        private_pem, public_pem = new_key_pair()
        try:
            with transaction.atomic():
                row = ActorKey.objects.create(
                    actor=name, private_pem=private_pem, public_pem=public_pem
                )
        except IntegrityError:  # another process made it first: theirs is the key
            row = ActorKey.objects.get(actor=name)
    return key_id(name), row.private_pem, row.public_pem
