#pragma once

class UVaultMovement;

// A plain helper: it knows which component functions make the bindings.
struct FVaultBindings
{
	void Bind(UVaultMovement* Component);
};
