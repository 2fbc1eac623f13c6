"""tongiaki.v1, generated from proto/tongiaki/v1 by ``make proto``: do not edit the modules."""
