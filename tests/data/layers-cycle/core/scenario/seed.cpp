// Allowed: scenario's own function.
int scenarioDefaultSeed()
{
    return 1;
}
