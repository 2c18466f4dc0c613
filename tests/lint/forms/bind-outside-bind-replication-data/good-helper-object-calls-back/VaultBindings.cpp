#include "VaultBindings.h"
#include "VaultMovement.h"

void FVaultBindings::Bind(UVaultMovement* Component)
{
	if (Component == nullptr)
	{
		return;
	}
	Component->BindVaultValues();
}
