// Forbidden at link time: sim calls a function of scenario, declared by hand instead of included.
int scenarioDefaultSeed();

int firstTick()
{
    return scenarioDefaultSeed() + 1;
}
